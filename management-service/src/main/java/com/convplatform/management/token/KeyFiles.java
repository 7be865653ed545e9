package com.convplatform.management.token;

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
import java.util.List;

import org.bouncycastle.jce.ECNamedCurveTable;
import org.bouncycastle.jce.spec.ECNamedCurveParameterSpec;
import org.jose4j.jwk.EllipticCurveJsonWebKey;
import org.jose4j.jwk.Use;
import org.jose4j.jws.AlgorithmIdentifiers;
import org.jose4j.lang.HashUtil;

import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pem.PemFiles;
import com.convplatform.management.config.ManagementConfig;
import com.convplatform.support.ConfigChecks;

/** The JWT keys' files: EC P-256 keys in PEM, read into signing keys and JWKS entries. */
public final class KeyFiles {
    /** jose4j asks the JCA for BouncyCastle by name, which {@code quarkus.security.security-providers} registers. */
    static final java.security.Provider ES256_PROVIDER = com.convplatform.crypto.sig.CryptoProviders.recommended()
            .ecdsa();

    record SigningKey(String kid, PrivateKey privateKey, ECPublicKey publicKey) {
    }

    private KeyFiles() {
    }

    static ECPublicKey publicKey(Path file) {
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

    static EllipticCurveJsonWebKey jwk(ECPublicKey key) {
        EllipticCurveJsonWebKey jwk = new EllipticCurveJsonWebKey(key);
        jwk.setKeyId(jwk.calculateBase64urlEncodedThumbprint(HashUtil.SHA_256));
        jwk.setAlgorithm(AlgorithmIdentifiers.ECDSA_USING_P256_CURVE_AND_SHA256);
        jwk.setUse(Use.SIGNATURE);
        return jwk;
    }

    static SigningKey readKey(Path file) {
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
