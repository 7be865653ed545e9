package com.convplatform.management.token;

import java.time.Clock;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.jose4j.jca.ProviderContext;
import org.jose4j.jws.AlgorithmIdentifiers;
import org.jose4j.jws.JsonWebSignature;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwt.NumericDate;
import org.jose4j.jwx.HeaderParameterNames;
import org.jose4j.lang.JoseException;

import com.convplatform.management.config.ManagementConfig;
import com.convplatform.management.token.KeyFiles.SigningKey;

/** Issues ES256 JWTs signed with the current key of {@link SigningKeys}. */
@ApplicationScoped
public class TokenService {
    private static final ProviderContext PROVIDERS = new ProviderContext();
    static {
        PROVIDERS.getSuppliedKeyProviderContext().setSignatureProvider(KeyFiles.ES256_PROVIDER.getName());
    }

    /** An issued token's shape (its claims decode; the signature is random) for the OpenAPI example. */
    static final String EXAMPLE_TOKEN = "eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6Ik56YkxzWGg4dURDY2QtNk1Od1hGNFdfN25vV1hGWkFmSGt4WnNSR0M5"
            + "WHMifQ.eyJpc3MiOiJwbGF0Zm9ybS1tYW5hZ2VtZW50IiwiYXVkIjoicGxhdGZvcm0tYXBpIiwic3ViIjoiNmYxYzhhNTItM2IwZ"
            + "S00ZDdhLTlhNTctMWYwZTJiN2M5ZDEwIiwiY2xpZW50X2lkIjoiNmYxYzhhNTItM2IwZS00ZDdhLTlhNTctMWYwZTJiN2M5ZDEwI"
            + "iwiYWNjb3VudF9pZCI6IjBiN2M2ZjFlLTNhNTItNGQwZS05YTdlLTJmMWM5ZDRlOGExMCIsImJ1c2luZXNzX2lkIjoiNDcxMSIsI"
            + "mlhdCI6MTc5NTYwMDgwMCwiZXhwIjoxNzk1NjA0NDAwLCJqdGkiOiIzZDlhNmMxZS01MmYwLTRiN2UtOGMyYS05ZTFmMGQzYjZhN"
            + "DcifQ.hcGl-gDjvgUPVimC6iG-8W6ULMvZVAvtE9iF8oWnvpKwQ1Ew5CGl8sOwTviGu9WgKGkWLJE2LYmbsDoG8MN44A";

    public record TokenResponse(
            @Schema(description = "An ES256 JWT; send it as 'Authorization: Bearer' with the client-id header", example = EXAMPLE_TOKEN) String accessToken,
            @Schema(example = "Bearer") String tokenType,
            @Schema(description = "Seconds", example = "3600") long expiresIn,
            @Schema(example = "6f1c8a52-3b0e-4d7a-9a57-1f0e2b7c9d10") String clientId) {
    }

    private final ManagementConfig config;
    private final Clock clock;
    private final SigningKeys keys;

    public TokenService(ManagementConfig config, Clock clock, SigningKeys keys) {
        this.config = config;
        this.clock = clock;
        this.keys = keys;
    }

    /**
     * A token for the client.
     *
     * @param certSha256 the SHA-256 of the signing certificate's DER (lower-case hex), the claim cert_sha256 that the
     *        revocation list's certificate entries match
     */
    public TokenResponse issue(String clientId, String accountId, String businessId, String certSha256) {
        SigningKey key = keys.current();
        long now = clock.instant().getEpochSecond();
        long lifetime = config.jwt().lifetime().toSeconds();
        JwtClaims claims = new JwtClaims();
        claims.setIssuer(config.jwt().issuer());
        claims.setAudience(config.jwt().audience());
        claims.setSubject(clientId);
        claims.setClaim("client_id", clientId);
        claims.setClaim("account_id", accountId);
        claims.setClaim("business_id", businessId);
        claims.setClaim("cert_sha256", certSha256);
        claims.setIssuedAt(NumericDate.fromSeconds(now));
        claims.setExpirationTime(NumericDate.fromSeconds(now + lifetime));
        claims.setJwtId(UUID.randomUUID().toString());
        JsonWebSignature jws = new JsonWebSignature();
        jws.setAlgorithmHeaderValue(AlgorithmIdentifiers.ECDSA_USING_P256_CURVE_AND_SHA256);
        jws.setHeader(HeaderParameterNames.TYPE, "JWT");
        jws.setKeyIdHeaderValue(key.kid());
        jws.setPayload(claims.toJson());
        jws.setKey(key.privateKey());
        jws.setProviderContext(PROVIDERS);
        try {
            return new TokenResponse(jws.getCompactSerialization(), "Bearer", lifetime, clientId);
        } catch (JoseException e) {
            throw new IllegalStateException("Cannot sign the token", e);
        }
    }
}
