package com.convplatform.management.token;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECPoint;
import java.security.spec.ECPublicKeySpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.stream.Stream;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;

import org.bouncycastle.jce.ECNamedCurveTable;
import org.bouncycastle.jce.spec.ECNamedCurveParameterSpec;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.jose4j.jca.ProviderContext;
import org.jose4j.jwk.EllipticCurveJsonWebKey;
import org.jose4j.jwk.JsonWebKey.OutputControlLevel;
import org.jose4j.jwk.Use;
import org.jose4j.jws.AlgorithmIdentifiers;
import org.jose4j.jws.JsonWebSignature;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwt.NumericDate;
import org.jose4j.jwx.HeaderParameterNames;
import org.jose4j.lang.HashUtil;
import org.jose4j.lang.JoseException;

import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pem.PemFiles;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.management.config.ManagementConfig;
import com.convplatform.support.ApiException;
import com.convplatform.support.ConfigChecks;
import com.convplatform.support.LocalTransaction;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;

/** Issues ES256 JWTs and publishes their public keys as a JWKS. */
@ApplicationScoped
@Startup // the key is read, and its gauge registered, at start: a broken key file stops the start
public class TokenService {
    /** jose4j asks the JCA for BouncyCastle by name, which {@code quarkus.security.security-providers} registers. */
    private static final java.security.Provider ES256_PROVIDER = com.convplatform.crypto.sig.CryptoProviders
            .recommended().ecdsa();
    private static final ProviderContext PROVIDERS = new ProviderContext();
    static {
        PROVIDERS.getSuppliedKeyProviderContext().setSignatureProvider(ES256_PROVIDER.getName());
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

    @Schema(description = "The key that signs tokens now")
    public record SigningKeyState(
            @Schema(description = "Its JWKS key id (RFC 7638 thumbprint), the kid of every token it signs", example = "3q2-7wZ4bU0zJg9nq1rj1rO5cWKcDp7xM6Y8uZb0A0E") String kid,
            @Schema(example = "ES256") String algorithm,
            @Schema(description = "generated: made and kept under management.data-dir, rotated by POST /admin/v1/jwt/rotate;"
                    + " key-file: management.jwt.key-file, rotated by replacing the file (docs/operations.md, Keys and"
                    + " their rotation)", enumeration = {
                            "generated", "key-file"}, example = "key-file") String source,
            @Schema(description = "When the platform first signed with it: recorded by the first replica that loaded it, as"
                    + " the earlier of then and its file's date (the gauge"
                    + " management_jwt_signing_key_created_timestamp_seconds)", example = "2026-09-01T08:00:00Z") Instant firstUsedAt,
            @Schema(description = "first_used_at plus max_age: the date by which to rotate it (the alert"
                    + " ManagementJwtKeyOld fires after it)", example = "2026-11-30T08:00:00Z") Instant rotateBy,
            @Schema(description = "The rotation policy: the oldest a signing key should be (ISO-8601)", example = "P90D") String maxAge){
    }

    private record SigningKey(String kid, PrivateKey privateKey, ECPublicKey publicKey) {
    }

    /** The rotation policy, which the alert ManagementJwtKeyOld ({@code > 90 * 86400}) checks: change them together. */
    public static final Duration MAX_AGE = Duration.ofDays(90);

    private static final String RECORD_KEY = "insert into jwt_signing_key (kid, first_used_at) select ?, ?"
            + " where not exists (select 1 from jwt_signing_key where kid = ?)";
    private static final String KEY_DATE = "select first_used_at from jwt_signing_key where kid = ?";

    private final ManagementConfig config;
    private final Clock clock;
    private final DataSource dataSource;
    private volatile SigningKey current;
    private volatile Instant currentSince; // when the platform first signed with it (table jwt_signing_key)
    private volatile ECPublicKey previous;
    private final List<ECPublicKey> published;

    public TokenService(ManagementConfig config, Clock clock, DataSource dataSource, MeterRegistry metrics) {
        this.config = config;
        this.clock = clock;
        this.dataSource = dataSource;
        Gauge.builder("management.jwt.signing_key.created.timestamp", this, t -> t.currentSince.getEpochSecond())
                .baseUnit("seconds").description("When the platform first signed tokens with the current signing key"
                        + " (an EC key has no date of its own; rotate it every 90 days)")
                .register(metrics);
        boolean generated = config.jwt().keyFile().isEmpty();
        Path file = generated ? keyDir().resolve("current-key.pem") : Paths.get(config.jwt().keyFile().get());
        if (generated && !Files.exists(file)) {
            PemFiles.writeOwnerOnly(file, Pem.toPem(KeyPairs.ecP256().getPrivate()));
        }
        current = readKey(file);
        currentSince = firstUse(current, file);
        Path prev = keyDir().resolve("previous-key.pem");
        if (generated && Files.exists(prev)) {
            previous = readKey(prev).publicKey();
        }
        published = config.jwt().publishedKeyFiles().orElse(List.of()).stream().map(f -> publicKey(Paths.get(f)))
                .toList();
    }

    private static ECPublicKey publicKey(Path file) {
        try {
            String pem = PemFiles.read(file);
            if (!pem.contains("-----BEGIN PUBLIC KEY-----")) {
                return toSigningKey(Pem.parsePrivateKey(pem)).publicKey();
            }
            if (Pem.parsePublicKey(pem) instanceof ECPublicKey ec && ec.getParams().getOrder().bitLength() == 256) {
                return ec;
            }
            throw new IllegalArgumentException("not an EC P-256 key");
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("management.jwt.published-key-files: " + file
                    + " is not an EC P-256 public or private key in PEM (" + e.getMessage() + ")", e);
        }
    }

    /**
     * A token for the client.
     *
     * @param certSha256 the SHA-256 of the signing certificate's DER (lower-case hex), the claim cert_sha256 that the
     *        revocation list's certificate entries match
     */
    public TokenResponse issue(String clientId, String accountId, String businessId, String certSha256) {
        SigningKey key = current;
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

    /** The signing key, the previous one after a rotation, then the published ones; each key once. */
    public Map<String, Object> jwks() {
        Map<String, Map<String, Object>> keys = new LinkedHashMap<>();
        Stream.concat(Stream.of(current.publicKey(), previous), published.stream()).filter(Objects::nonNull)
                .map(TokenService::jwk)
                .forEach(jwk -> keys.putIfAbsent(jwk.getKeyId(), jwk.toParams(OutputControlLevel.PUBLIC_ONLY)));
        return Map.of("keys", List.copyOf(keys.values()));
    }

    /** A new generated signing key; its id. The old public key stays in the JWKS until the next rotation. */
    public synchronized String rotate() {
        if (config.jwt().keyFile().isPresent()) {
            throw new ApiException(409, "KEY_FROM_FILE",
                    "The signing key comes from management.jwt.key-file; replace that file");
        }
        Path cur = keyDir().resolve("current-key.pem");
        PemFiles.writeOwnerOnly(keyDir().resolve("previous-key.pem"), PemFiles.read(cur));
        PemFiles.writeOwnerOnly(cur, Pem.toPem(KeyPairs.ecP256().getPrivate()));
        // The old key becomes the previous one before the new one signs: the JWKS never lacks a key in use.
        previous = current.publicKey();
        SigningKey next = readKey(cur);
        currentSince = firstUse(next, cur);
        current = next;
        return current.kid();
    }

    public synchronized SigningKeyState signingKey() { // with rotate(): the key id and its date of one key
        return new SigningKeyState(current.kid(), AlgorithmIdentifiers.ECDSA_USING_P256_CURVE_AND_SHA256,
                config.jwt().keyFile().isPresent() ? "key-file" : "generated", currentSince,
                currentSince.plus(MAX_AGE), "P" + MAX_AGE.toDays() + "D");
    }

    /** Recorded once, by the first replica, as the earlier of now and the file's date (an old key keeps its age). */
    private Instant firstUse(SigningKey key, Path file) {
        Instant now = clock.instant();
        Instant seen = now;
        try {
            Instant modified = Files.getLastModifiedTime(file).toInstant();
            seen = modified.isBefore(now) ? modified : now;
        } catch (IOException e) {
            // the key was just read from it; should its date be unreadable, now will do
        }
        OffsetDateTime first = OffsetDateTime.ofInstant(seen, ZoneOffset.UTC);
        return LocalTransaction.run(dataSource, "Recording when the JWT signing key was first used", c -> {
            try (PreparedStatement insert = c.prepareStatement(RECORD_KEY)) {
                insert.setString(1, key.kid());
                insert.setObject(2, first);
                insert.setString(3, key.kid());
                insert.executeUpdate();
            } catch (SQLException e) {
                // another replica recorded it at the same moment (the key id is unique): its date stands
                c.rollback();
            }
            try (PreparedStatement select = c.prepareStatement(KEY_DATE)) {
                select.setString(1, key.kid());
                try (ResultSet r = select.executeQuery()) {
                    r.next();
                    return r.getObject(1, OffsetDateTime.class).toInstant();
                }
            }
        });
    }

    private Path keyDir() {
        return Paths.get(config.dataDir(), "jwt");
    }

    private static EllipticCurveJsonWebKey jwk(ECPublicKey key) {
        EllipticCurveJsonWebKey jwk = new EllipticCurveJsonWebKey(key);
        jwk.setKeyId(jwk.calculateBase64urlEncodedThumbprint(HashUtil.SHA_256));
        jwk.setAlgorithm(AlgorithmIdentifiers.ECDSA_USING_P256_CURVE_AND_SHA256);
        jwk.setUse(Use.SIGNATURE);
        return jwk;
    }

    private static SigningKey readKey(Path file) {
        try {
            return toSigningKey(Pem.parsePrivateKey(PemFiles.read(file)));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(file + " is not a readable EC P-256 private key in PEM ("
                    + e.getMessage() + ")", e);
        }
    }

    /**
     * Adds to {@code checks} why the key files the settings name cannot serve, one problem each (the start-up checks list
     * them with the other settings' problems): {@code management.jwt.key-file} must be an EC P-256 private key, each
     * published one an EC P-256 public or private key.
     */
    public static void checkKeyFiles(ManagementConfig.Jwt jwt, ConfigChecks checks) {
        jwt.keyFile().ifPresent(f -> {
            try {
                readKey(Paths.get(f));
            } catch (RuntimeException e) {
                checks.require(false, "management.jwt.key-file: " + e.getMessage(), "management.jwt.key-file");
            }
        });
        for (String f : jwt.publishedKeyFiles().orElse(List.of())) {
            try {
                publicKey(Paths.get(f));
            } catch (RuntimeException e) {
                checks.require(false, e.getMessage(), "management.jwt.published-key-files");
            }
        }
    }

    private static SigningKey toSigningKey(PrivateKey key) {
        if (!(key instanceof ECPrivateKey ec) || ec.getParams().getOrder().bitLength() != 256) {
            throw new IllegalArgumentException("The JWT signing key must be an EC P-256 key (ES256)");
        }
        try {
            ECNamedCurveParameterSpec spec = ECNamedCurveTable.getParameterSpec("secp256r1");
            var q = spec.getG().multiply(ec.getS()).normalize();
            ECPoint w = new ECPoint(q.getAffineXCoord().toBigInteger(), q.getAffineYCoord().toBigInteger());
            ECPublicKey pub = (ECPublicKey) KeyFactory.getInstance("EC")
                    .generatePublic(new ECPublicKeySpec(w, ec.getParams()));
            // The provider's own key object: given another provider's key, BouncyCastle rebuilds the generator point's
            // precomputed multiples on every signature (two thirds of the signing time in the load test's profile).
            PrivateKey own = KeyFactory.getInstance("EC", ES256_PROVIDER)
                    .generatePrivate(new PKCS8EncodedKeySpec(key.getEncoded()));
            return new SigningKey(jwk(pub).getKeyId(), own, pub);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Cannot derive the public key", e);
        }
    }
}
