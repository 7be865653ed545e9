package com.convplatform.crypto.management;

import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.sig.CryptoProviders;
import com.convplatform.crypto.sig.SignatureAlgorithm;
import com.convplatform.crypto.sig.Signatures;

/**
 * The external client's side of spec 5.1: signs the exact body bytes with the client's RSA or EC key and returns the
 * value of the {@code Signature} header (SHA-1, as the specification names) or of the {@code Signature-256} header
 * (SHA-256, this platform's extension). Send exactly the bytes you signed; {@link #headers(byte[], boolean)} gives
 * both headers at once.
 */
public final class ManagementRequestSigner {
    private final PrivateKey key;
    private final SignatureAlgorithm algorithm;
    private final SignatureAlgorithm algorithm256;
    private final CryptoProviders providers;

    public ManagementRequestSigner(PrivateKey key, CryptoProviders providers) {
        this.key = Objects.requireNonNull(key, "key");
        this.providers = Objects.requireNonNull(providers, "providers");
        try {
            this.algorithm = Signatures.managementAlgorithm(key);
            this.algorithm256 = Signatures.managementAlgorithm256(key);
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

    /** The {@code Signature-256} header value (SHA256withRSA or SHA256withECDSA) for these exact body bytes. */
    public String sign256(byte[] body) {
        return Signatures.sign(algorithm256, key, body, providers);
    }

    /** The {@code Signature-256} header value for a body string, encoded as UTF-8. */
    public String sign256(String body) {
        return sign256(body.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The signature headers for these exact body bytes, in the order to send them: {@code Signature} and, unless
     * {@code sha1Only}, {@code Signature-256}. A platform that does not know {@code Signature-256} ignores it.
     */
    public Map<String, String> headers(byte[] body, boolean sha1Only) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(ManagementHeaders.SIGNATURE, sign(body));
        if (!sha1Only) {
            headers.put(ManagementHeaders.SIGNATURE_256, sign256(body));
        }
        return headers;
    }

    /** The algorithm of the {@code Signature} header: SHA1withRSA or SHA1withECDSA, from the key. */
    public SignatureAlgorithm algorithm() {
        return algorithm;
    }

    /** The algorithm of the {@code Signature-256} header: SHA256withRSA or SHA256withECDSA, from the key. */
    public SignatureAlgorithm algorithm256() {
        return algorithm256;
    }
}
