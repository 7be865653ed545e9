package com.convplatform.upload.auth;

import java.time.Clock;
import java.time.Duration;
import java.util.stream.Stream;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.eclipse.microprofile.jwt.JsonWebToken;
import org.jose4j.jws.AlgorithmIdentifiers;
import org.jose4j.jwt.consumer.ErrorCodes;
import org.jose4j.jwt.consumer.InvalidJwtException;
import org.jose4j.jwx.JsonWebStructure;
import org.jose4j.lang.InvalidAlgorithmException;
import org.jose4j.lang.JoseException;
import org.jose4j.lang.UnresolvableKeyException;

import com.convplatform.support.ApiException;
import com.convplatform.support.ApiKeys;
import com.convplatform.support.Roles;
import com.convplatform.upload.config.UploadConfig;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;

import io.quarkus.arc.Unremovable;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.IdentityProvider;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.request.TokenAuthenticationRequest;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.quarkus.vertx.http.runtime.security.HttpSecurityUtils;
import io.smallrye.jwt.auth.principal.JWTParser;
import io.smallrye.jwt.auth.principal.ParseException;
import io.smallrye.mutiny.Uni;
import io.vertx.ext.web.RoutingContext;

/**
 * The upload's caller (spec 5.3): a bearer token verified by SmallRye JWT and a {@code client-id} header equal to the
 * token's client; role {@value #CLIENT}, with a {@link Caller}. Replaces SmallRye JWT's provider at the upload only.
 */
@ApplicationScoped
@Unremovable // looked up by Quarkus Security only, never injected
public class TokenIdentityProvider implements IdentityProvider<TokenAuthenticationRequest> {
    public static final String CLIENT = "client";
    static final String UPLOAD_PATH = "/v1.0/log_file_from_user";
    public static final String CALLER = "upload.caller";

    public record Caller(String clientId, String accountId, String businessId) {
    }

    private record Verified(Caller caller, long expiresAt, long issuedAt, String certSha256) {
    }

    private final JWTParser parser;
    private final Clock clock;
    private final long leewaySeconds;
    /**
     * Verifying each upload's token again showed in the load test. An entry lasts until expiry, at most the JWKS
     * refresh interval, so a key removed from the JWKS stops working within twice that interval.
     */
    private final Cache<String, Verified> verified;

    private final Revocations revocations;

    public TokenIdentityProvider(PlatformKeys keys, Clock clock, UploadConfig config, Revocations revocations) {
        this.revocations = revocations;
        this.parser = keys.parser();
        this.clock = clock;
        this.leewaySeconds = config.jwtLeeway();
        long ttl = Math.min(config.verifiedTokenTtl().toNanos(), config.jwksRefresh().toNanos());
        this.verified = Caffeine.newBuilder().maximumSize(config.verifiedTokenMax())
                .expireAfter(Expiry.<String, Verified>creating((token, v) -> Duration.ofNanos(Math.min(ttl,
                        Duration.ofSeconds(v.expiresAt() + leewaySeconds - clock.instant().getEpochSecond())
                                .toNanos()))))
                .build();
    }

    @Override
    public Class<TokenAuthenticationRequest> getRequestType() {
        return TokenAuthenticationRequest.class;
    }

    @Override
    public int priority() {
        return 2000; // before SmallRye JWT's MpJwtValidator (the default, 1001)
    }

    @Override
    public Uni<SecurityIdentity> authenticate(TokenAuthenticationRequest request,
            AuthenticationRequestContext context) {
        RoutingContext http = HttpSecurityUtils.getRoutingContextAttribute(request);
        if (http == null || !http.normalizedPath().startsWith(UPLOAD_PATH)) {
            // a bearer that is not the operator key, at the operator API: refused there
            return Uni.createFrom().nullItem();
        }
        String token = request.getToken().getToken();
        String clientId = http.request().getHeader("client-id");
        Verified known = verified.getIfPresent(token);
        if (known != null) {
            return Uni.createFrom().item(() -> identity(known, clientId));
        }
        // an ES256 check and maybe a JWKS download: off the event loop
        return context.runBlocking(() -> identity(verify(token), clientId));
    }

    private Verified verify(String token) {
        JsonWebToken jwt;
        try {
            jwt = parser.parse(token);
        } catch (ParseException e) {
            throw failed(reason(e, token));
        }
        // SmallRye JWT checks exp but leaves jose4j's limit on an iat in the future unset.
        if (jwt.getIssuedAtTime() - leewaySeconds > clock.instant().getEpochSecond()) {
            throw failed("the token was issued in the future");
        }
        Caller caller = new Caller(jwt.containsClaim("client_id") ? jwt.getClaim("client_id") : jwt.getSubject(),
                jwt.getClaim("account_id"), jwt.getClaim("business_id"));
        if (Stream.of(caller.clientId(), caller.accountId(), caller.businessId())
                .anyMatch(v -> v == null || v.isEmpty())) {
            throw failed("the token names no client, account or business");
        }
        Verified v = new Verified(caller, jwt.getExpirationTime(), jwt.getIssuedAtTime(),
                jwt.containsClaim("cert_sha256") ? jwt.getClaim("cert_sha256") : null);
        verified.put(token, v);
        return v;
    }

    /** The caller, unless the token is revoked (checked on every upload: a remembered token too) or its client-id wrong. */
    private SecurityIdentity identity(Verified verified, String clientIdHeader) {
        Caller caller = verified.caller();
        String revoked = revocations.revoked(caller.accountId(), caller.clientId(), verified.certSha256(),
                verified.issuedAt());
        if (revoked != null) {
            throw new AuthenticationFailedException(new ApiException(401, "TOKEN_REVOKED", "Invalid authorization"
                    + " details: this token no longer works: " + revoked
                    + ". Ask the platform's operator, or sign a new token request with a"
                    + " certificate and client that are in use"));
        }
        return identity(caller, clientIdHeader);
    }

    private static SecurityIdentity identity(Caller caller, String clientIdHeader) {
        if (clientIdHeader == null || clientIdHeader.isBlank()) {
            throw failed("the client-id header is missing");
        }
        if (!caller.clientId().equals(clientIdHeader.trim())) {
            throw failed("the client-id header does not match the token");
        }
        return QuarkusSecurityIdentity.builder().setPrincipal(new QuarkusPrincipal(caller.clientId()))
                .addRole(CLIENT).addAttribute(CALLER, caller).build();
    }

    private static String reason(ParseException e, String token) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof InvalidJwtException j) {
                if (j.hasExpired()) {
                    return "the token has expired; ask for a new one";
                } else if (j.hasErrorCode(ErrorCodes.ISSUER_INVALID) || j.hasErrorCode(ErrorCodes.ISSUER_MISSING)) {
                    return "the token was not issued by the platform";
                } else if (j.hasErrorCode(ErrorCodes.AUDIENCE_INVALID)
                        || j.hasErrorCode(ErrorCodes.AUDIENCE_MISSING)) {
                    return "the token is not meant for this API";
                } else if (j.hasErrorCode(ErrorCodes.SIGNATURE_INVALID)) {
                    return "the token's signature does not verify";
                } else if (j.hasErrorCode(ErrorCodes.SIGNATURE_MISSING)) {
                    return "the token must be signed with ES256";
                }
            } else if (t instanceof UnresolvableKeyException) {
                // the JWKS is searched by kid and algorithm: say which of the two is wrong
                return AlgorithmIdentifiers.ECDSA_USING_P256_CURVE_AND_SHA256.equals(algorithm(token))
                        ? "the token's key is not one of the platform's"
                        : "the token must be signed with ES256";
            } else if (t instanceof InvalidAlgorithmException) {
                return "the token must be signed with ES256";
            }
        }
        return "the token is not a valid JWT";
    }

    private static String algorithm(String token) {
        try {
            return JsonWebStructure.fromCompactSerialization(token).getAlgorithmHeaderValue();
        } catch (JoseException e) {
            return null;
        }
    }

    private static AuthenticationFailedException failed(String why) {
        return new AuthenticationFailedException(invalid(why));
    }

    static ApiException invalid(String why) {
        return new ApiException(401, "INVALID_AUTHORIZATION", "Invalid authorization details: " + why);
    }

    /** The operator key as a role; the refusal of an upload without a token. */
    @Produces
    @Singleton
    static ApiKeys apiKeys(UploadConfig config) {
        return ApiKeys.of().with(Roles.OPERATOR, "upload.admin.api-key", config.admin().apiKey()).refusing(CLIENT,
                invalid("send 'Authorization: Bearer <access token>' and the client-id header"));
    }
}
