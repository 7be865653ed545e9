package com.convplatform.crypto.pki;

import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;

/** Key pair generation with the JDK's providers. */
public final class KeyPairs {
    private KeyPairs() {
    }

    /** A fresh RSA key pair of {@code bits} bits. */
    public static KeyPair rsa(int bits) {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
            g.initialize(bits);
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("RSA key generation is not available", e);
        }
    }

    /** A fresh EC key pair on a named curve, for example {@code secp256r1}. */
    public static KeyPair ec(String curve) {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec(curve));
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("EC key generation for " + curve + " is not available", e);
        }
    }

    /** RSA 2048. */
    public static KeyPair rsa() {
        return rsa(2048);
    }

    /** EC P-256. */
    public static KeyPair ecP256() {
        return ec("secp256r1");
    }
}
