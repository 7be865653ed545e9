package com.convplatform.crypto.management;

import static com.convplatform.crypto.FailureCode.CERT_FETCH_BUSY;
import static com.convplatform.crypto.FailureCode.CERT_HEADERS;
import static com.convplatform.crypto.FailureCode.CERT_UNKNOWN;
import static com.convplatform.crypto.FailureCode.SIGNATURE_MISMATCH;

import java.net.URI;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.VerifierBuilder;
import com.convplatform.crypto.cache.ChainCache;
import com.convplatform.crypto.chain.ChainValidator;
import com.convplatform.crypto.chain.ValidatedChain;
import com.convplatform.crypto.fetch.CertificateFetcher;
import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.sig.CryptoProviders;
import com.convplatform.crypto.sig.KeyPolicy;
import com.convplatform.crypto.sig.SignatureAlgorithm;
import com.convplatform.crypto.sig.Signatures;
import com.convplatform.crypto.time.TimestampWindow;
import com.convplatform.crypto.url.CertificateUrl;
import com.convplatform.crypto.url.ManagementCertUrlRule;

/**
 * The platform's side of spec 5.1: verifies a signed management request in the spec's order: (1) certificate
 * location, (2) certificate validity, (3) signature, (4) timestamp. Thread-safe; build one per service.
 */
public final class ManagementRequestVerifier {

    /** Looks up a registered self-signed certificate of the request's account; empty when unknown or revoked. */
    @FunctionalInterface
    public interface RegisteredCertificates {
        Optional<X509Certificate> find(String certificateUuid);
    }

    /**
     * Asked before each chain download, with the account's FQDN: it may refuse the download (a per-account budget)
     * with {@code CERT_FETCH_BUSY}. The default lets every download through.
     */
    @FunctionalInterface
    public interface DownloadGate {
        void beforeDownload(String fqdn, CertificateUrl url) throws VerificationException;
    }

    /**
     * The request as received.
     *
     * @param body the exact body bytes
     * @param fqdn the account FQDN named by the body
     * @param timestamp the body's timestamp field (null when absent)
     * @param signature the Signature header
     * @param certChainUrl the SignatureCertChainUrl header, or null
     * @param certUuid the SignatureCertUUID header, or null
     */
    public record Request(byte[] body, String fqdn, String timestamp, String signature, String certChainUrl,
            String certUuid) {
        public Request {
            Objects.requireNonNull(body, "body");
            Objects.requireNonNull(fqdn, "fqdn");
        }
    }

    /**
     * A verified request.
     *
     * @param chain the signing chain (signing certificate first)
     * @param certificateSource the normalised chain URL, or "uuid:" and the certificate id
     * @param algorithm the signature algorithm that verified
     * @param timestamp the request's timestamp
     */
    public record Verified(ValidatedChain chain, String certificateSource, SignatureAlgorithm algorithm,
            Instant timestamp) {
    }

    private final ChainValidator validator;
    private final CertificateFetcher fetcher;
    private final ChainCache cache;
    private final Clock clock;
    private final TimestampWindow window;
    private final CryptoProviders providers;
    private final Duration refetchAfter;
    private final DownloadGate gate;
    private final Duration failureMemory;
    /** Chain URLs whose download or validation failed lately, with the failure and until when it is repeated. */
    private final Map<String, Remembered> failures;

    private record Remembered(VerificationException failure, Instant until) {
    }

    private ManagementRequestVerifier(Builder b) {
        this.validator = new ChainValidator(b.trustAnchors());
        this.fetcher = b.fetcher();
        this.clock = b.clock();
        this.cache = new ChainCache(b.cacheSize(), b.cacheMaxAge(), Duration.ofSeconds(10), b.clock());
        this.window = new TimestampWindow(b.tolerance(), b.clock());
        this.providers = b.providers();
        this.refetchAfter = b.refetchAfter();
        this.gate = b.gate;
        this.failureMemory = b.failureMemory;
        int most = b.cacheSize();
        this.failures = new LinkedHashMap<>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Remembered> eldest) {
                return size() > most;
            }
        };
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Verifies one request.
     *
     * @param registered lookup of the account's registered self-signed certificates
     * @throws VerificationException naming the first check that failed
     */
    public Verified verify(Request request, RegisteredCertificates registered) throws VerificationException {
        boolean hasUrl = request.certChainUrl() != null && !request.certChainUrl().isEmpty();
        boolean hasUuid = request.certUuid() != null && !request.certUuid().isEmpty();
        if (hasUrl == hasUuid) {
            throw new VerificationException(CERT_HEADERS, hasUrl
                    ? "Send either " + ManagementHeaders.CERT_CHAIN_URL + " or " + ManagementHeaders.CERT_UUID
                            + ", not both"
                    : "Send " + ManagementHeaders.CERT_CHAIN_URL + " (CA-signed certificate) or "
                            + ManagementHeaders.CERT_UUID + " (registered self-signed certificate)");
        }
        String fqdn = request.fqdn();
        // Steps 1 and 2: where the certificate comes from, and whether it is valid.
        String key;
        ChainCache.Loader loader;
        if (hasUrl) {
            CertificateUrl url = new ManagementCertUrlRule(fqdn).check(request.certChainUrl());
            key = url.toString();
            loader = k -> loadChain(url, fqdn);
        } else {
            String uuid = request.certUuid();
            X509Certificate cert = registered.find(uuid)
                    .orElseThrow(() -> new VerificationException(CERT_UNKNOWN, "No registered certificate '"
                            + abbreviate(uuid) + "' exists for account " + fqdn + " (or it was revoked)"));
            key = "uuid:" + fqdn + "/" + uuid;
            loader = k -> {
                ValidatedChain c = ChainValidator.validateSelfSigned(cert, fqdn, clock.instant());
                KeyPolicy.check(c.publicKey());
                return c;
            };
            ChainCache.Entry cached = cache.get(key, loader);
            if (!cached.chain().leaf().equals(cert)) {
                cache.invalidate(key);
            }
        }
        ChainCache.Entry entry = hasUrl ? chainFromUrl(key, loader) : cache.getValid(key, loader);

        // Step 3: the signature over the exact bytes received.
        byte[] signature = Signatures.decodeBase64(request.signature());
        SignatureAlgorithm algorithm = Signatures.managementAlgorithm(entry.chain().publicKey());
        if (!Signatures.verify(algorithm, entry.chain().publicKey(), request.body(), signature, providers)) {
            ChainCache.Entry refreshed;
            try {
                refreshed = hasUrl ? cache.refresh(key, entry, refetchAfter, loader) : entry;
                refreshed.chain().checkValidAt(clock.instant());
            } catch (VerificationException refetchFailed) {
                throw new VerificationException(SIGNATURE_MISMATCH, "The signature does not verify with the key of "
                        + entry.chain().leaf().getSubjectX500Principal().getName()
                        + ", and downloading the certificate again to look for a new key failed ("
                        + refetchFailed.code() + ": " + refetchFailed.getMessage() + ")", refetchFailed);
            }
            algorithm = Signatures.managementAlgorithm(refreshed.chain().publicKey());
            if (refreshed == entry || !Signatures.verify(algorithm, refreshed.chain().publicKey(), request.body(),
                    signature, providers)) {
                throw new VerificationException(SIGNATURE_MISMATCH, "The signature does not verify with the key of "
                        + entry.chain().leaf().getSubjectX500Principal().getName() + " over the "
                        + request.body().length
                        + " body bytes received (" + algorithm.jcaName()
                        + "); sign exactly the bytes you send, with the key of this certificate");
            }
            entry = refreshed;
        }

        // Step 4: freshness.
        Instant ts = window.check(request.timestamp());
        return new Verified(entry.chain(), key, algorithm, ts);
    }

    /**
     * The chain behind a URL, through the cache; a failed download or validation is answered again, without a new
     * download, for the failure memory's time: requests naming a failing URL cost the customer's server one download,
     * not one each. A busy refusal is not remembered (it says nothing about the URL).
     */
    private ChainCache.Entry chainFromUrl(String key, ChainCache.Loader loader) throws VerificationException {
        if (failureMemory.isZero()) {
            return cache.getValid(key, loader);
        }
        Instant now = clock.instant();
        Remembered remembered;
        synchronized (failures) {
            remembered = failures.get(key);
        }
        if (remembered != null && now.isBefore(remembered.until())) {
            VerificationException f = remembered.failure();
            throw new VerificationException(f.code(), f.getMessage() + " (this result is kept for up to "
                    + failureMemory.toSeconds() + " s after the download; send the request again after that)", f);
        }
        try {
            return cache.getValid(key, loader);
        } catch (VerificationException failed) {
            if (failed.code() != CERT_FETCH_BUSY) {
                synchronized (failures) {
                    failures.put(key, new Remembered(failed, now.plus(failureMemory)));
                }
            }
            throw failed;
        }
    }

    /**
     * Drops the cached chains and remembered failures of one account (by its FQDN), or of all accounts when
     * {@code fqdn} is null: the next request of each downloads its chain again.
     */
    public void purge(String fqdn) {
        Predicate<String> keys = fqdn == null ? k -> true : k -> ofAccount(k, fqdn);
        cache.invalidateIf(keys);
        synchronized (failures) {
            failures.keySet().removeIf(keys);
        }
    }

    private static boolean ofAccount(String key, String fqdn) {
        String host = key.startsWith("uuid:") ? key.substring(5, key.indexOf('/')) : URI.create(key).getHost();
        return host != null && host.equalsIgnoreCase(fqdn);
    }

    private ValidatedChain loadChain(CertificateUrl url, String fqdn) throws VerificationException {
        gate.beforeDownload(fqdn.toLowerCase(Locale.ROOT), url);
        byte[] pem = fetcher.fetch(url);
        List<X509Certificate> chain = Pem.parseCertificates(pem, fetcher.maxBytes());
        ValidatedChain validated = validator.validate(chain, fqdn, clock.instant());
        KeyPolicy.check(validated.publicKey());
        return validated;
    }

    private static String abbreviate(String s) {
        return s.length() <= 64 ? s : s.substring(0, 64) + "...";
    }

    /** Builder; trust anchors and the fetcher are required. Defaults: 150 s window, 1000 cached chains. */
    public static final class Builder extends VerifierBuilder<Builder> {
        private DownloadGate gate = (fqdn, url) -> {
        };
        private Duration failureMemory = Duration.ZERO;

        private Builder() {
            super(TimestampWindow.MANAGEMENT, 1000);
        }

        /** Asked before each chain download (default: every download goes ahead). */
        public Builder downloadGate(DownloadGate gate) {
            this.gate = Objects.requireNonNull(gate, "gate");
            return this;
        }

        /** How long a failed chain URL is answered with its failure without a new download (default: not at all). */
        public Builder failureMemory(Duration memory) {
            if (memory.isNegative()) {
                throw new IllegalArgumentException("failureMemory must not be negative");
            }
            this.failureMemory = memory;
            return this;
        }

        public ManagementRequestVerifier build() {
            Objects.requireNonNull(trustAnchors(), "trustAnchors");
            Objects.requireNonNull(fetcher(), "fetcher");
            return new ManagementRequestVerifier(this);
        }
    }
}
