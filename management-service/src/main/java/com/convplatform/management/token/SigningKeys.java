package com.convplatform.management.token;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.interfaces.ECPublicKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.jose4j.jwk.JsonWebKey.OutputControlLevel;
import org.jose4j.jws.AlgorithmIdentifiers;

import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pem.PemFiles;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.management.config.ManagementConfig;
import com.convplatform.management.token.KeyFiles.SigningKey;
import com.convplatform.support.ApiException;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;

/** The key that signs tokens, its rotation and date, and the public keys published as a JWKS. */
@ApplicationScoped
@Startup // the key is read, and its gauge registered, at start: a broken key file stops the start
public class SigningKeys {
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

    /** The rotation policy, which the alert ManagementJwtKeyOld ({@code > 90 * 86400}) checks: change them together. */
    public static final Duration MAX_AGE = Duration.ofDays(90);

    private final ManagementConfig config;
    private final Clock clock;
    private final SigningKeyRepository repository;
    private volatile SigningKey current;
    private volatile Instant currentSince; // when the platform first signed with it (table jwt_signing_key)
    private volatile ECPublicKey previous;
    private final List<ECPublicKey> published;

    public SigningKeys(ManagementConfig config, Clock clock, SigningKeyRepository repository, MeterRegistry metrics) {
        this.config = config;
        this.clock = clock;
        this.repository = repository;
        Gauge.builder("management.jwt.signing_key.created.timestamp", this, t -> t.currentSince.getEpochSecond())
                .baseUnit("seconds").description("When the platform first signed tokens with the current signing key"
                        + " (an EC key has no date of its own; rotate it every 90 days)")
                .register(metrics);
        boolean generated = config.jwt().keyFile().isEmpty();
        Path file = generated ? keyDir().resolve("current-key.pem") : Paths.get(config.jwt().keyFile().get());
        if (generated && !Files.exists(file)) {
            PemFiles.writeOwnerOnly(file, Pem.toPem(KeyPairs.ecP256().getPrivate()));
        }
        current = KeyFiles.readKey(file);
        currentSince = firstUse(current, file);
        Path prev = keyDir().resolve("previous-key.pem");
        if (generated && Files.exists(prev)) {
            previous = KeyFiles.readKey(prev).publicKey();
        }
        published = config.jwt().publishedKeyFiles().orElse(List.of()).stream()
                .map(f -> KeyFiles.publicKey(Paths.get(f)))
                .toList();
    }

    SigningKey current() {
        return current;
    }

    /** The signing key, the previous one after a rotation, then the published ones; each key once. */
    public Map<String, Object> jwks() {
        Map<String, Map<String, Object>> keys = new LinkedHashMap<>();
        Stream.concat(Stream.of(current.publicKey(), previous), published.stream()).filter(Objects::nonNull)
                .map(KeyFiles::jwk)
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
        SigningKey next = KeyFiles.readKey(cur);
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
        return repository.firstUse(key.kid(), first);
    }

    private Path keyDir() {
        return Paths.get(config.dataDir(), "jwt");
    }
}
