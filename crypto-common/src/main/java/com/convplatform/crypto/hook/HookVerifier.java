package com.convplatform.crypto.hook;

import static com.convplatform.crypto.FailureCode.CERT_KEY_UNSUPPORTED;
import static com.convplatform.crypto.FailureCode.CERT_MALFORMED;
import static com.convplatform.crypto.FailureCode.SIGNATURE_MISMATCH;
import static com.convplatform.crypto.FailureCode.TIMESTAMP_MALFORMED;

import java.security.cert.X509Certificate;
import java.security.interfaces.RSAPublicKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.VerifierBuilder;
import com.convplatform.crypto.cache.ChainCache;
import com.convplatform.crypto.chain.ChainValidator;
import com.convplatform.crypto.chain.TrustAnchors;
import com.convplatform.crypto.chain.ValidatedChain;
import com.convplatform.crypto.fetch.CertificateFetcher;
import com.convplatform.crypto.json.JsonFields;
import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.sig.CryptoProviders;
import com.convplatform.crypto.sig.KeyPolicy;
import com.convplatform.crypto.sig.SignatureAlgorithm;
import com.convplatform.crypto.sig.Signatures;
import com.convplatform.crypto.time.TimestampWindow;
import com.convplatform.crypto.url.CertificateUrl;
import com.convplatform.crypto.url.HookCertUrlRule;

/**
 * What an external client runs for every hook it receives (spec 5.2), on the raw body before decoding the JSON:
 * (1) the certificate URL rule, (2) the certificate downloaded (cached by normalised URL), (3) its validity, its
 * chain to a trusted root and the URL's host in its SANs, (4) the SHA256withRSA signature, (5) the body's
 * {@code signature_timestamp} within 120 s. On a signature mismatch with a cached certificate it downloads the
 * certificate once more, so the platform can rotate its key. Thread-safe; build one and keep it.
 *
 * <pre>{@code
 * HookVerifier verifier = HookVerifier.builder().platformDomains("platform.example").build();
 * try {
 *     verifier.verify(request.header("signature"), request.header("signature-certificate-url"), rawBody);
 * } catch (VerificationException e) {
 *     return 400; // e.code() says which check failed
 * }
 * }</pre>
 */
public final class HookVerifier {

    /**
     * @param certificateUrl the normalised certificate URL
     * @param chain the validated signing chain
     * @param signatureTimestamp the body's signature_timestamp
     */
    public record Verified(String certificateUrl, ValidatedChain chain, Instant signatureTimestamp) {
    }

    private final HookCertUrlRule rule;
    private final ChainValidator validator;
    private final CertificateFetcher fetcher;
    private final ChainCache cache;
    private final Clock clock;
    private final TimestampWindow window;
    private final CryptoProviders providers;
    private final Duration refetchAfter;

    private HookVerifier(Builder b) {
        this.rule = new HookCertUrlRule(b.domains);
        this.validator = new ChainValidator(b.trustAnchors());
        this.fetcher = b.fetcher();
        this.clock = b.clock();
        this.cache = new ChainCache(b.cacheSize(), b.cacheMaxAge(), Duration.ofSeconds(10), b.clock());
        this.window = new TimestampWindow(b.tolerance(), b.clock());
        this.providers = b.providers();
        this.refetchAfter = b.refetchAfter();
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Verifies one hook request.
     *
     * @param signature the {@code signature} header
     * @param certificateUrl the {@code signature-certificate-url} header
     * @param rawBody the body bytes exactly as received
     * @throws VerificationException naming the first check that failed; answer HTTP 400
     */
    public Verified verify(String signature, String certificateUrl, byte[] rawBody) throws VerificationException {
        Objects.requireNonNull(rawBody, "rawBody");
        CertificateUrl url = rule.check(certificateUrl);
        String key = url.toString();
        ChainCache.Loader loader = k -> load(url);
        ChainCache.Entry entry = cache.getValid(key, loader);
        byte[] sig = Signatures.decodeBase64(signature);
        if (!verifies(entry, rawBody, sig)) {
            ChainCache.Entry refreshed;
            try {
                refreshed = cache.refresh(key, entry, refetchAfter, loader);
                refreshed.chain().checkValidAt(clock.instant());
            } catch (VerificationException refetchFailed) {
                throw new VerificationException(SIGNATURE_MISMATCH, "The signature does not verify with the platform"
                        + " certificate from " + key + ", and downloading it again to look for a new key failed ("
                        + refetchFailed.code() + ": " + refetchFailed.getMessage() + ")", refetchFailed);
            }
            if (refreshed == entry || !verifies(refreshed, rawBody, sig)) {
                throw new VerificationException(SIGNATURE_MISMATCH,
                        "The signature does not verify over the " + rawBody.length
                                + " raw body bytes with the platform certificate from " + key
                                + "; verify the bytes exactly as received, before decoding JSON");
            }
            entry = refreshed;
        }
        String ts;
        try {
            ts = JsonFields.topLevelString(rawBody, HookHeaders.SIGNATURE_TIMESTAMP_FIELD).orElse(null);
        } catch (IllegalArgumentException e) {
            throw new VerificationException(TIMESTAMP_MALFORMED,
                    "The signature_timestamp cannot be read: " + e.getMessage(), e);
        }
        return new Verified(key, entry.chain(), window.check(ts));
    }

    private boolean verifies(ChainCache.Entry entry, byte[] body, byte[] sig) throws VerificationException {
        return Signatures.verify(SignatureAlgorithm.SHA256_WITH_RSA, entry.chain().publicKey(), body, sig,
                providers);
    }

    private ValidatedChain load(CertificateUrl url) throws VerificationException {
        byte[] json = fetcher.fetch(url);
        String pem;
        try {
            pem = JsonFields.topLevelString(json, "certificate")
                    .orElseThrow(() -> new IllegalArgumentException("it has no 'certificate' field"));
        } catch (IllegalArgumentException e) {
            throw new VerificationException(CERT_MALFORMED,
                    "The document at " + url + " is not a JSON object with a 'certificate' string: " + e.getMessage(),
                    e);
        }
        List<X509Certificate> chain = Pem.parseCertificates(pem.getBytes(java.nio.charset.StandardCharsets.US_ASCII),
                fetcher.maxBytes());
        ValidatedChain validated = validator.validate(chain, url.host(), clock.instant());
        if (!(validated.publicKey() instanceof RSAPublicKey)) {
            throw new VerificationException(CERT_KEY_UNSUPPORTED,
                    "The platform certificate's key is not RSA; hooks are signed with SHA256withRSA");
        }
        KeyPolicy.check(validated.publicKey());
        return validated;
    }

    /**
     * Builder; at least one platform domain is required. Defaults: the JVM's roots, {@link CertificateFetcher}
     * defaults, 120 s window, 16 cached certificate URLs (a receiver normally sees one or two).
     */
    public static final class Builder extends VerifierBuilder<Builder> {
        private List<String> domains;

        private Builder() {
            super(TimestampWindow.HOOK, 16);
        }

        /**
         * The domain of the platform whose hooks are received (spec 5.2: production's for production, staging's for
         * staging); hosts must be subdomains of one of them. A receiver that names both accepts either platform's key.
         */
        public Builder platformDomains(String... domains) {
            this.domains = List.of(domains);
            return this;
        }

        /** As {@link #platformDomains(String...)}. */
        public Builder platformDomains(List<String> domains) {
            this.domains = List.copyOf(domains);
            return this;
        }

        public HookVerifier build() {
            if (domains == null || domains.isEmpty()) {
                throw new IllegalStateException("platformDomains is required");
            }
            if (trustAnchors() == null) {
                trustAnchors(TrustAnchors.jdkDefaults());
            }
            if (fetcher() == null) {
                fetcher(CertificateFetcher.withDefaults());
            }
            return new HookVerifier(this);
        }
    }
}
