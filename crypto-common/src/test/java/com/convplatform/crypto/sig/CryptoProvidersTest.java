package com.convplatform.crypto.sig;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.PublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;

import org.junit.jupiter.api.Test;

import com.convplatform.crypto.pki.KeyPairs;

/** The provider's own key objects for ECDSA verification: the same key, converted once, and nothing else touched. */
class CryptoProvidersTest {
    static final byte[] DATA = "{\"fqdn\":\"a.example.org\"}".getBytes(StandardCharsets.UTF_8);

    @Test
    void anEcKeyOfTheJdkIsConvertedOnceAndStillVerifiesExactlyWhatItShould() throws Exception {
        CryptoProviders p = CryptoProviders.recommended();
        KeyPair kp = KeyPairs.ecP256();
        PublicKey converted = p.verificationKey(SignatureAlgorithm.SHA1_WITH_ECDSA, kp.getPublic());
        assertTrue(converted.getClass().getName().startsWith("org.bouncycastle."), converted.getClass().getName());
        assertEquals(kp.getPublic(), KeyFactory.getInstance("EC").generatePublic(
                new X509EncodedKeySpec(converted.getEncoded())), "the same public key");
        PublicKey equalCopy = KeyFactory.getInstance("EC").generatePublic(
                new X509EncodedKeySpec(kp.getPublic().getEncoded()));
        assertSame(converted, p.verificationKey(SignatureAlgorithm.SHA256_WITH_ECDSA, equalCopy),
                "an equal key finds the converted one");
        assertSame(converted, p.verificationKey(SignatureAlgorithm.SHA1_WITH_ECDSA, converted));

        byte[] sig = Base64.getDecoder()
                .decode(Signatures.sign(SignatureAlgorithm.SHA1_WITH_ECDSA, kp.getPrivate(), DATA, p));
        assertTrue(Signatures.verify(SignatureAlgorithm.SHA1_WITH_ECDSA, kp.getPublic(), DATA, sig, p));
        byte[] other = DATA.clone();
        other[2] ^= 1;
        assertFalse(Signatures.verify(SignatureAlgorithm.SHA1_WITH_ECDSA, kp.getPublic(), other, sig, p));
        assertFalse(Signatures.verify(SignatureAlgorithm.SHA1_WITH_ECDSA, KeyPairs.ecP256().getPublic(), DATA, sig, p),
                "another key does not verify it");
    }

    @Test
    void rsaKeysAndTheJdkProvidersGetTheKeyAsItIs() {
        PublicKey rsa = KeyPairs.rsa().getPublic();
        assertSame(rsa, CryptoProviders.recommended().verificationKey(SignatureAlgorithm.SHA1_WITH_RSA, rsa));
        PublicKey ec = KeyPairs.ecP256().getPublic();
        assertSame(ec, CryptoProviders.jdk().verificationKey(SignatureAlgorithm.SHA1_WITH_ECDSA, ec));
    }
}
