package com.convplatform.management.token;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECPoint;
import java.security.spec.ECPublicKeySpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;

import org.bouncycastle.jce.ECNamedCurveTable;
import org.bouncycastle.jce.spec.ECNamedCurveParameterSpec;

import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pem.PemFiles;
import com.convplatform.crypto.pki.EcJwk;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.management.config.ManagementConfig;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Issues ES256 JWTs and publishes their public keys as a JWKS. The signing key comes from
 * {@code management.jwt.key-file}, or is generated on first start and kept under the data directory; a rotation keeps
 * the previous public key in the JWKS so tokens issued before it stay verifiable until they expire.
 */
@ApplicationScoped
public class TokenService {
    private static final Base64.Encoder B64URL = Base64.getUrlEncoder().withoutPadding();
    /**
     * ES256 signatures come from BouncyCastle (r||s, "PLAIN-ECDSA"), with the key held as its own key object (see
     * {@code toSigningKey} and the README's load-test section).
     */
    private static final java.security.Provider ES256_PROVIDER = com.convplatform.crypto.sig.CryptoProviders
            .recommended().ecdsa();

    /** An issued token. */
    public record IssuedToken(String accessToken, long expiresIn) {
    }

    private record SigningKey(String kid, PrivateKey privateKey, ECPublicKey publicKey) {
    }

    private final ManagementConfig config;
    private final Clock clock;
    private final ObjectMapper json;
    private volatile SigningKey current;
    private volatile ECPublicKey previous;
    /** From {@code management.jwt.published-key-files}: published, never used to sign. */
    private List<ECPublicKey> published = List.of();

    public TokenService(ManagementConfig config, Clock clock, ObjectMapper json) {
        this.config = config;
        this.clock = clock;
        this.json = json;
    }

    @PostConstruct
    void load() {
        if (config.jwt().keyFile().isPresent()) {
            current = toSigningKey(Pem.parsePrivateKey(PemFiles.read(Paths.get(config.jwt().keyFile().get()))));
        } else {
            Path file = keyDir().resolve("current-key.pem");
            if (!Files.exists(file)) {
                PemFiles.writeOwnerOnly(file, Pem.toPem(KeyPairs.ecP256().getPrivate()));
            }
            current = toSigningKey(Pem.parsePrivateKey(PemFiles.read(file)));
            Path prev = keyDir().resolve("previous-key.pem");
            if (Files.exists(prev)) {
                previous = toSigningKey(Pem.parsePrivateKey(PemFiles.read(prev))).publicKey();
            }
        }
        List<ECPublicKey> keys = new ArrayList<>();
        for (String file : config.jwt().publishedKeyFiles().orElse(List.of())) {
            keys.add(publicKey(Paths.get(file)));
        }
        published = List.copyOf(keys);
    }

    /** A published key's file: an EC P-256 public key ({@code PUBLIC KEY}) or a private key to take it from. */
    private static ECPublicKey publicKey(Path file) {
        String pem = PemFiles.read(file);
        try {
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

    /** Signs a token for a client of an account. */
    public IssuedToken issue(String clientId, String accountId, String businessId) {
        SigningKey key = current;
        Instant now = clock.instant();
        long lifetime = config.jwt().lifetime().toSeconds();
        Map<String, Object> header = new LinkedHashMap<>();
        header.put("alg", "ES256");
        header.put("typ", "JWT");
        header.put("kid", key.kid());
        Map<String, Object> claims = new LinkedHashMap<>();
        claims.put("iss", config.jwt().issuer());
        claims.put("aud", config.jwt().audience());
        claims.put("sub", clientId);
        claims.put("client_id", clientId);
        claims.put("account_id", accountId);
        claims.put("business_id", businessId);
        claims.put("iat", now.getEpochSecond());
        claims.put("exp", now.getEpochSecond() + lifetime);
        claims.put("jti", UUID.randomUUID().toString());
        try {
            String signingInput = B64URL.encodeToString(json.writeValueAsBytes(header)) + "."
                    + B64URL.encodeToString(json.writeValueAsBytes(claims));
            Signature s = Signature.getInstance("SHA256withPLAIN-ECDSA", ES256_PROVIDER);
            s.initSign(key.privateKey());
            s.update(signingInput.getBytes(StandardCharsets.US_ASCII));
            return new IssuedToken(signingInput + "." + B64URL.encodeToString(s.sign()), lifetime);
        } catch (JsonProcessingException | GeneralSecurityException e) {
            throw new IllegalStateException("Cannot sign the token", e);
        }
    }

    /**
     * The JWKS: the signing key, then the previous one after a rotation, then those of
     * {@code management.jwt.published-key-files}; each key once.
     */
    public Map<String, Object> jwks() {
        List<Map<String, Object>> keys = new ArrayList<>();
        keys.add(jwk(current.publicKey(), current.kid()));
        Set<String> kids = new HashSet<>();
        kids.add(current.kid());
        List<ECPublicKey> others = new ArrayList<>();
        if (previous != null) {
            others.add(previous);
        }
        others.addAll(published);
        for (ECPublicKey key : others) {
            String kid = thumbprint(key);
            if (kids.add(kid)) {
                keys.add(jwk(key, kid));
            }
        }
        return Map.of("keys", keys);
    }

    /**
     * Generates a new signing key; the old public key stays in the JWKS until the next rotation. Only for the
     * generated key: a key given in {@code management.jwt.key-file} is rotated by replacing the file.
     *
     * @return the new key id
     */
    public synchronized String rotate() {
        if (config.jwt().keyFile().isPresent()) {
            throw new IllegalStateException("The signing key comes from management.jwt.key-file; replace that file");
        }
        Path cur = keyDir().resolve("current-key.pem");
        Path prev = keyDir().resolve("previous-key.pem");
        PemFiles.writeOwnerOnly(prev, PemFiles.read(cur));
        PemFiles.writeOwnerOnly(cur, Pem.toPem(KeyPairs.ecP256().getPrivate()));
        SigningKey old = current;
        current = toSigningKey(Pem.parsePrivateKey(PemFiles.read(cur)));
        previous = old.publicKey();
        return current.kid();
    }

    public String currentKid() {
        return current.kid();
    }

    private Path keyDir() {
        return Paths.get(config.dataDir(), "jwt");
    }

    private static Map<String, Object> jwk(ECPublicKey key, String kid) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("kty", "EC");
        m.put("crv", "P-256");
        m.put("x", EcJwk.x(key));
        m.put("y", EcJwk.y(key));
        m.put("kid", kid);
        m.put("alg", "ES256");
        m.put("use", "sig");
        return m;
    }

    /** RFC 7638 thumbprint of an EC P-256 key. */
    static String thumbprint(ECPublicKey key) {
        String canonical = "{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"" + EcJwk.x(key) + "\",\"y\":\"" + EcJwk.y(key)
                + "\"}";
        try {
            return B64URL.encodeToString(
                    MessageDigest.getInstance("SHA-256").digest(canonical.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
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
            // The signing provider's own key object: given a key of another provider, BouncyCastle converts its
            // domain parameters on every signature, and with a fresh generator point it rebuilds the point's
            // precomputed multiples each time (about two thirds of the signing time in the load test's profile).
            PrivateKey own = KeyFactory.getInstance("EC", ES256_PROVIDER)
                    .generatePrivate(new PKCS8EncodedKeySpec(key.getEncoded()));
            return new SigningKey(thumbprint(pub), own, pub);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Cannot derive the public key", e);
        }
    }

}
