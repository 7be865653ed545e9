package com.convplatform.crypto.sig;

import java.security.NoSuchAlgorithmException;
import java.security.Provider;
import java.security.Signature;
import java.util.Objects;

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
