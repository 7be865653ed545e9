package com.convplatform.crypto.sig;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.NoSuchAlgorithmException;
import java.security.Provider;
import java.security.PublicKey;
import java.security.Signature;
import java.security.interfaces.ECPublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import org.bouncycastle.jce.provider.BouncyCastleProvider;

/**
 * Which JCA provider performs which signature family. Nothing is registered globally: the provider object is passed to
 * {@link Signature#getInstance(String, Provider)}. The recommended choice was made by measurement (module README):
 * BouncyCastle verifies ECDSA P-256 about three times faster than the JDK 17 provider, while RSA was even, so RSA
 * stays with the JDK.
 *
 * @param ecdsa provider for ECDSA, or null for the JDK's default
 * @param rsa provider for RSA, or null for the JDK's default
 */
public record CryptoProviders(Provider ecdsa, Provider rsa) {

    private static final class Holder {
        static final Provider BC = new BouncyCastleProvider();
    }

    /** BouncyCastle for ECDSA, the JDK for RSA. */
    public static CryptoProviders recommended() {
        return new CryptoProviders(Holder.BC, null);
    }

    /** The JDK's providers for everything. */
    public static CryptoProviders jdk() {
        return new CryptoProviders(null, null);
    }

    /** BouncyCastle for everything (used in comparisons). */
    public static CryptoProviders bouncyCastle() {
        return new CryptoProviders(Holder.BC, Holder.BC);
    }

    /**
     * The key to verify an ECDSA signature with, as the ECDSA provider's own key object when that provider is
     * BouncyCastle; any other key or provider: the key as it is. BouncyCastle keeps the precomputed multiples of a
     * public point on the point object, so verifying again with the same key object is about 2.5 times faster than
     * with a key of another provider, which it converts into a fresh point every time (module README). The converted
     * keys are kept by key, at most {@value KeyCache#MAX} of them (the cache is emptied when full).
     */
    public PublicKey verificationKey(SignatureAlgorithm algorithm, PublicKey key) {
        if (!algorithm.isEcdsa() || ecdsa != Holder.BC || !(key instanceof ECPublicKey)
                || key instanceof org.bouncycastle.jce.interfaces.ECKey) {
            return key;
        }
        PublicKey converted = KeyCache.KEYS.get(key);
        if (converted == null) {
            try {
                converted = KeyFactory.getInstance("EC", Holder.BC)
                        .generatePublic(new X509EncodedKeySpec(key.getEncoded()));
            } catch (GeneralSecurityException | RuntimeException e) {
                return key; // the provider then reports the key as it would have
            }
            if (KeyCache.KEYS.size() >= KeyCache.MAX) {
                KeyCache.KEYS.clear();
            }
            KeyCache.KEYS.put(key, converted);
        }
        return converted;
    }

    private static final class KeyCache {
        static final int MAX = 1024;
        /** By the key as given (JDK keys are equal when their encodings are). */
        static final Map<PublicKey, PublicKey> KEYS = new ConcurrentHashMap<>();
    }

    /** A fresh {@link Signature} for the algorithm from the chosen provider. */
    public Signature signature(SignatureAlgorithm algorithm) {
        Objects.requireNonNull(algorithm, "algorithm");
        Provider p = algorithm.isEcdsa() ? ecdsa : rsa;
        try {
            return p == null
                    ? Signature.getInstance(algorithm.jcaName())
                    : Signature.getInstance(algorithm.jcaName(), p);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(algorithm.jcaName() + " is not available", e);
        }
    }
}
