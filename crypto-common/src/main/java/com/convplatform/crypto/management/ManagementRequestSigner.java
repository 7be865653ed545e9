package com.convplatform.crypto.management;

import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import java.util.Objects;

import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.sig.CryptoProviders;
import com.convplatform.crypto.sig.SignatureAlgorithm;
import com.convplatform.crypto.sig.Signatures;

/**
 * The external client's side of spec 5.1: signs the exact body bytes with SHA-1 and the client's RSA or EC key, and
 * returns the value of the {@code Signature} header. Send exactly the bytes you signed.
 */
public final class ManagementRequestSigner {
    private final PrivateKey key;
    private final SignatureAlgorithm algorithm;
    private final CryptoProviders providers;

    public ManagementRequestSigner(PrivateKey key, CryptoProviders providers) {
        this.key = Objects.requireNonNull(key, "key");
        this.providers = Objects.requireNonNull(providers, "providers");
        try {
            this.algorithm = Signatures.managementAlgorithm(key);
        } catch (VerificationException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /** A signer using the recommended providers. */
    public ManagementRequestSigner(PrivateKey key) {
        this(key, CryptoProviders.recommended());
    }

    /** The {@code Signature} header value for these exact body bytes. */
    public String sign(byte[] body) {
        return Signatures.sign(algorithm, key, body, providers);
    }

    /** The {@code Signature} header value for a body string, encoded as UTF-8. */
    public String sign(String body) {
        return sign(body.getBytes(StandardCharsets.UTF_8));
    }

    public SignatureAlgorithm algorithm() {
        return algorithm;
    }
}
