package com.convplatform.crypto.sig;

import static com.convplatform.crypto.FailureCode.CERT_KEY_UNSUPPORTED;

import java.security.PublicKey;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;

import com.convplatform.crypto.VerificationException;

/** Which signing keys we accept: RSA of 2048 bits or more, or EC on P-256, P-384 or P-521. */
public final class KeyPolicy {
    /** Smallest RSA modulus accepted. */
    public static final int MIN_RSA_BITS = 2048;

    private KeyPolicy() {
    }

    /** Throws {@code CERT_KEY_UNSUPPORTED} with the reason unless the key is acceptable. */
    public static void check(PublicKey key) throws VerificationException {
        if (key instanceof RSAPublicKey rsa) {
            int bits = rsa.getModulus().bitLength();
            if (bits < MIN_RSA_BITS) {
                throw new VerificationException(CERT_KEY_UNSUPPORTED,
                        "The RSA key has " + bits + " bits; at least " + MIN_RSA_BITS + " are required");
            }
            return;
        }
        if (key instanceof ECPublicKey ec) {
            int bits = ec.getParams().getOrder().bitLength();
            if (bits != 256 && bits != 384 && bits != 521) {
                throw new VerificationException(CERT_KEY_UNSUPPORTED,
                        "The EC key is on a " + bits + "-bit curve; P-256, P-384 or P-521 are accepted");
            }
            return;
        }
        throw new VerificationException(CERT_KEY_UNSUPPORTED,
                "The key is " + key.getAlgorithm() + "; RSA or EC (ECDSA) keys are accepted");
    }
}
