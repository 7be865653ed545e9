package com.convplatform.upload.auth;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.Signature;
import java.security.interfaces.ECPublicKey;
import java.time.Clock;
import java.util.Base64;

import jakarta.enterprise.context.ApplicationScoped;

import com.convplatform.crypto.sig.CryptoProviders;
import com.convplatform.crypto.sig.SignatureAlgorithm;
import com.convplatform.support.ApiException;
import com.convplatform.support.BoundedCache;
import com.convplatform.upload.config.UploadConfig;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Checks {@code Authorization: Bearer <JWT>} and {@code client-id} (spec 5.3): an ES256 token from management-service,
 * signature by a key of its JWKS, issuer, audience, expiry, and the client-id header equal to the token's client.
 * Only ES256 is accepted: no "none", no HMAC, no algorithm chosen by the token beyond that. A token whose signature
 * has verified with a key is not verified again with that key ({@link VerifiedSignatures}), nor decoded again; its
 * claims are checked on every request.
 */
@ApplicationScoped
public class TokenVerifier {
    /** Who is calling. */
    public record Caller(String clientId, String accountId, String businessId) {
    }

    private final JwksKeys keys;
    private final UploadConfig config;
    private final Clock clock;
    private final ObjectMapper json;
    /** Tokens sent again skip the ES256 verification (at most 4 096 remembered). */
    private final VerifiedSignatures signatures = new VerifiedSignatures(4096);
    /**
     * Tokens already decoded whose signature verified (decoding is a function of the token alone): a client sends the
     * same token with every upload, and decoding its two JSON parts was most of the time a check took. At most 4 096
     * remembered.
     */
    private final BoundedCache<String, Parsed> parsedTokens = new BoundedCache<>(4096);

    /** A well-formed JWT: its three parts as sent, and its header and claims decoded (read only). */
    private record Parsed(String[] parts, JsonNode header, JsonNode claims) {
    }

    public TokenVerifier(JwksKeys keys, UploadConfig config, Clock clock, ObjectMapper json) {
        this.keys = keys;
        this.config = config;
        this.clock = clock;
        this.json = json;
    }

    public Caller verify(String authorization, String clientIdHeader) {
        if (authorization == null || !authorization.startsWith("Bearer ") || authorization.length() > 8192) {
            throw invalid("send 'Authorization: Bearer <access token>'");
        }
        if (clientIdHeader == null || clientIdHeader.isBlank()) {
            throw invalid("the client-id header is missing");
        }
        String token = authorization.substring(7).trim();
        Parsed cached = parsedTokens.get(token);
        Parsed parsed = cached != null ? cached : parse(token);
        JsonNode claims = parsed.claims();
        if (!"ES256".equals(parsed.header().path("alg").asText())) {
            throw invalid("the token must be signed with ES256");
        }
        ECPublicKey key = keys.key(parsed.header().path("kid").asText(""))
                .orElseThrow(() -> invalid("the token's key is not one of the platform's"));
        String[] parts = parsed.parts();
        if (!signatures.verifies(token, key, () -> signatureVerifies(parts, key))) {
            throw invalid("the token's signature does not verify");
        }
        if (cached == null) {
            parsedTokens.put(token, parsed);
        }
        long now = clock.instant().getEpochSecond();
        long leeway = config.jwtLeeway().toSeconds();
        if (!config.jwtIssuer().equals(claims.path("iss").asText())) {
            throw invalid("the token was not issued by the platform");
        }
        JsonNode aud = claims.path("aud");
        boolean audOk = aud.isTextual()
                ? config.jwtAudience().equals(aud.asText())
                : aud.isArray() && contains(aud, config.jwtAudience());
        if (!audOk) {
            throw invalid("the token is not meant for this API");
        }
        if (!claims.path("exp").canConvertToLong() || claims.path("exp").asLong() + leeway < now) {
            throw invalid("the token has expired; ask for a new one");
        }
        if (claims.path("iat").canConvertToLong() && claims.path("iat").asLong() - leeway > now) {
            throw invalid("the token was issued in the future");
        }
        String clientId = claims.path("client_id").asText(claims.path("sub").asText(""));
        if (clientId.isEmpty() || !clientId.equals(clientIdHeader.trim())) {
            throw invalid("the client-id header does not match the token");
        }
        String account = claims.path("account_id").asText("");
        String business = claims.path("business_id").asText("");
        if (account.isEmpty() || business.isEmpty()) {
            throw invalid("the token names no account");
        }
        return new Caller(clientId, account, business);
    }

    private Parsed parse(String token) {
        String[] parts = token.split("\\.", -1);
        if (parts.length != 3) {
            throw invalid("the token is not a JWT");
        }
        return new Parsed(parts, decode(parts[0]), decode(parts[1]));
    }

    private static boolean signatureVerifies(String[] parts, ECPublicKey key) {
        try {
            CryptoProviders providers = CryptoProviders.recommended();
            Signature s = Signature.getInstance("SHA256withPLAIN-ECDSA", providers.ecdsa());
            s.initVerify(providers.verificationKey(SignatureAlgorithm.SHA256_WITH_ECDSA, key));
            s.update((parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII));
            byte[] sig = Base64.getUrlDecoder().decode(parts[2]);
            return sig.length == 64 && s.verify(sig);
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            return false;
        }
    }

    private static boolean contains(JsonNode array, String value) {
        for (JsonNode n : array) {
            if (value.equals(n.asText())) {
                return true;
            }
        }
        return false;
    }

    private JsonNode decode(String part) {
        try {
            JsonNode n = json.readTree(Base64.getUrlDecoder().decode(part));
            if (n == null || !n.isObject()) {
                throw invalid("the token is not a JWT");
            }
            return n;
        } catch (java.io.IOException | IllegalArgumentException e) {
            throw invalid("the token is not a JWT");
        }
    }

    private static ApiException invalid(String why) {
        return new ApiException(401, "INVALID_AUTHORIZATION", "Invalid authorization details: " + why);
    }
}
