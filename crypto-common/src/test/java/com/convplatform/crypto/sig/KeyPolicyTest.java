package com.convplatform.crypto.sig;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.security.spec.ECGenParameterSpec;

import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.convplatform.crypto.FailureCode;
import com.convplatform.crypto.VerificationException;

/**
 * The signing keys accepted: EC on the three NIST curves only, named by the key itself (a curve of the same size is
 * not P-256), and RSA from 2048 to 8192 bits.
 */
class KeyPolicyTest {
    private static PublicKey ec(String curve) throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC", new BouncyCastleProvider());
        g.initialize(new ECGenParameterSpec(curve));
        return g.generateKeyPair().getPublic();
    }

    @ParameterizedTest
    @ValueSource(strings = {"secp256r1", "secp384r1", "secp521r1"})
    void theNistCurvesAreAccepted(String curve) throws Exception {
        assertDoesNotThrow(() -> KeyPolicy.check(ec(curve)));
        KeyPairGenerator jdk = KeyPairGenerator.getInstance("EC");
        jdk.initialize(new ECGenParameterSpec(curve));
        assertDoesNotThrow(() -> KeyPolicy.check(jdk.generateKeyPair().getPublic()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"secp256k1", "brainpoolP256r1", "brainpoolP384r1", "secp224r1"})
    void otherCurvesAreRefusedByName(String curve) throws Exception {
        VerificationException e = assertThrows(VerificationException.class, () -> KeyPolicy.check(ec(curve)));
        assertEquals(FailureCode.CERT_KEY_UNSUPPORTED, e.code());
        assertTrue(e.getMessage().contains(curve), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(ints = {1024, 2047})
    void rsaBelow2048BitsIsRefused(int bits) throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(bits);
        VerificationException e = assertThrows(VerificationException.class,
                () -> KeyPolicy.check(g.generateKeyPair().getPublic()));
        assertTrue(e.getMessage().contains(bits + " bits"), e.getMessage());
    }

    /** A larger key would pass here and then have every signature refused as too long by {@link Signatures}. */
    @org.junit.jupiter.api.Test
    void rsaAbove8192BitsIsRefused() throws Exception {
        java.security.KeyFactory rsa = java.security.KeyFactory.getInstance("RSA");
        java.math.BigInteger e = java.math.BigInteger.valueOf(65537);
        assertDoesNotThrow(() -> KeyPolicy.check(rsa.generatePublic(
                new java.security.spec.RSAPublicKeySpec(java.math.BigInteger.ONE.shiftLeft(8191).setBit(0), e))));
        VerificationException refused = assertThrows(VerificationException.class, () -> KeyPolicy.check(rsa
                .generatePublic(new java.security.spec.RSAPublicKeySpec(java.math.BigInteger.ONE.shiftLeft(8199)
                        .setBit(0), e))));
        assertEquals(FailureCode.CERT_KEY_UNSUPPORTED, refused.code());
        assertEquals("The RSA key has 8200 bits; 2048 to 8192 are accepted", refused.getMessage());
    }
}
