package com.convplatform.crypto.hook;

import java.security.PrivateKey;
import java.security.interfaces.RSAKey;
import java.util.Objects;

import com.convplatform.crypto.sig.CryptoProviders;
import com.convplatform.crypto.sig.SignatureAlgorithm;
import com.convplatform.crypto.sig.Signatures;

/**
 * The platform's side of spec 5.2: signs the raw body bytes of a hook with SHA256withRSA and names the URL the
 * receiver downloads the certificate from. Immutable and thread-safe; on key rotation build a new one.
 */
public final class HookSigner {
    private final PrivateKey key;
    private final String certificateUrl;
    private final CryptoProviders providers;

    /**
     * @param key the platform's RSA private key
     * @param certificateUrl the value sent in {@code signature-certificate-url}
     */
    public HookSigner(PrivateKey key, String certificateUrl, CryptoProviders providers) {
        this.key = Objects.requireNonNull(key, "key");
        this.certificateUrl = Objects.requireNonNull(certificateUrl, "certificateUrl");
        this.providers = Objects.requireNonNull(providers, "providers");
        if (!(key instanceof RSAKey)) {
            throw new IllegalArgumentException("Hooks are signed with SHA256withRSA: an RSA key is required, not "
                    + key.getAlgorithm());
        }
    }

    /** The header values for these exact body bytes. */
    public SignedHeaders sign(byte[] body) {
        return new SignedHeaders(Signatures.sign(SignatureAlgorithm.SHA256_WITH_RSA, key, body, providers),
                certificateUrl);
    }

    public String certificateUrl() {
        return certificateUrl;
    }

    /**
     * @param signature the {@code signature} header value
     * @param certificateUrl the {@code signature-certificate-url} header value
     */
    public record SignedHeaders(String signature, String certificateUrl) {
    }
}
