package com.convplatform.crypto.management;

import static com.convplatform.crypto.FailureCode.CERT_FETCH_BUSY;
import static com.convplatform.crypto.FailureCode.CERT_HEADERS;
import static com.convplatform.crypto.FailureCode.CERT_UNKNOWN;
import static com.convplatform.crypto.FailureCode.SIGNATURE_MALFORMED;
import static com.convplatform.crypto.FailureCode.SIGNATURE_MISMATCH;

import java.net.URI;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
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
     * @param signature the Signature header (SHA-1, spec 5.1), or null when not sent
     * @param certChainUrl the SignatureCertChainUrl header, or null
     * @param certUuid the SignatureCertUUID header, or null
     * @param signature256 the Signature-256 header (SHA-256, this platform's extension of spec 5.1), or null when not
     *        sent
     */
    public record Request(byte[] body, String fqdn, String timestamp, String signature, String certChainUrl,
            String certUuid, String signature256) {
        public Request {
            Objects.requireNonNull(body, "body");
            Objects.requireNonNull(fqdn, "fqdn");
        }

        /** A request with the specification's headers only (no {@code Signature-256}). */
        public Request(byte[] body, String fqdn, String timestamp, String signature, String certChainUrl,
                String certUuid) {
            this(body, fqdn, timestamp, signature, certChainUrl, certUuid, null);
        }
    }

    /**
     * A verified request.
     *
     * @param chain the signing chain (signing certificate first)
     * @param certificateSource the normalised chain URL, or "uuid:" and the certificate id
     * @param algorithm the strongest signature algorithm that verified (SHA-256 when Signature-256 was sent)
     * @param timestamp the request's timestamp
     * @param algorithms every algorithm that verified, one per signature header sent: Signature's first
     */
    public record Verified(ValidatedChain chain, String certificateSource, SignatureAlgorithm algorithm,
            Instant timestamp, List<SignatureAlgorithm> algorithms) {
        public Verified {
            algorithms = List.copyOf(algorithms);
        }

        /** True when the request carried a {@code Signature-256} that verified. */
        public boolean sha256() {
            return algorithms.contains(SignatureAlgorithm.SHA256_WITH_RSA)
                    || algorithms.contains(SignatureAlgorithm.SHA256_WITH_ECDSA);
        }
    }

    /** One signature header sent, decoded. */
    private record Sent(String header, byte[] raw, boolean sha256) {
        SignatureAlgorithm algorithm(java.security.PublicKey key) throws VerificationException {
            return sha256 ? Signatures.managementAlgorithm256(key) : Signatures.managementAlgorithm(key);
        }
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
        this.cache = new ChainCache(b.cacheSize(), b.cacheMaxAge(), Duration.ofSeconds(10), b.clock(), b.beforeLoad);
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

        // Step 3: the signatures over the exact bytes received: Signature (SHA-1, spec 5.1) and Signature-256 (SHA-256,
        // the extension). At least one is needed; every one sent must verify, so adding Signature-256 never weakens
        // a request, and an account that requires SHA-256 (the caller's policy) can drop Signature.
        List<Sent> sent = decodeSignatures(request);
        Sent failed = firstMismatch(sent, entry, request.body());
        if (failed != null) {
            ChainCache.Entry refreshed;
            try {
                refreshed = hasUrl ? cache.refresh(key, entry, refetchAfter, loader) : entry;
                refreshed.chain().checkValidAt(clock.instant());
            } catch (VerificationException refetchFailed) {
                throw new VerificationException(SIGNATURE_MISMATCH, "The " + failed.header()
                        + " header does not verify with the key of "
                        + entry.chain().leaf().getSubjectX500Principal().getName()
                        + ", and downloading the certificate again to look for a new key failed ("
                        + refetchFailed.code() + ": " + refetchFailed.getMessage() + ")", refetchFailed);
            }
            Sent failedAgain = refreshed == entry ? failed : firstMismatch(sent, refreshed, request.body());
            if (failedAgain != null) {
                throw new VerificationException(SIGNATURE_MISMATCH, "The " + failedAgain.header()
                        + " header does not verify with the key of "
                        + entry.chain().leaf().getSubjectX500Principal().getName() + " over the "
                        + request.body().length + " body bytes received ("
                        + failedAgain.algorithm(refreshed.chain().publicKey()).jcaName()
                        + "); sign exactly the bytes you send, with the key of this certificate"
                        + (sent.size() == 2 ? " (both signature headers are checked when both are sent)" : ""));
            }
            entry = refreshed;
        }
        List<SignatureAlgorithm> algorithms = new ArrayList<>(sent.size());
        for (Sent s : sent) {
            algorithms.add(s.algorithm(entry.chain().publicKey()));
        }

        // Step 4: freshness.
        Instant ts = window.check(request.timestamp());
        return new Verified(entry.chain(), key, algorithms.get(algorithms.size() - 1), ts, algorithms);
    }

    /**
     * The signature headers sent, decoded strictly: Signature first, then Signature-256. A header that is absent
     * (null) is skipped; one that is present is decoded even when empty, so an empty header is malformed.
     */
    private static List<Sent> decodeSignatures(Request request) throws VerificationException {
        List<Sent> sent = new ArrayList<>(2);
        if (request.signature() != null) {
            sent.add(new Sent(ManagementHeaders.SIGNATURE,
                    Signatures.decodeBase64(request.signature(), ManagementHeaders.SIGNATURE), false));
        }
        if (request.signature256() != null) {
            sent.add(new Sent(ManagementHeaders.SIGNATURE_256,
                    Signatures.decodeBase64(request.signature256(), ManagementHeaders.SIGNATURE_256), true));
        }
        if (sent.isEmpty()) {
            throw new VerificationException(SIGNATURE_MALFORMED, "No signature header: send "
                    + ManagementHeaders.SIGNATURE + " (SHA1withRSA or SHA1withECDSA, spec 5.1), "
                    + ManagementHeaders.SIGNATURE_256 + " (SHA256withRSA or SHA256withECDSA), or both");
        }
        return sent;
    }

    /** The first signature sent that does not verify with the entry's key, or null when all verify. */
    private Sent firstMismatch(List<Sent> sent, ChainCache.Entry entry, byte[] body) throws VerificationException {
        java.security.PublicKey key = entry.chain().publicKey();
        for (Sent s : sent) {
            if (!Signatures.verify(s.algorithm(key), key, body, s.raw(), providers)) {
                return s;
            }
        }
        return null;
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
        private Runnable beforeLoad = () -> {
        };

        private Builder() {
            super(TimestampWindow.MANAGEMENT, 1000);
        }

        /** Asked before each chain download (default: every download goes ahead). */
        public Builder downloadGate(DownloadGate gate) {
            this.gate = Objects.requireNonNull(gate, "gate");
            return this;
        }

        /**
         * Run before a chain is loaded (a download, the check of a registered certificate) or another request's load
         * of it is awaited; it may throw, so that a thread that must not block never does (default: nothing).
         */
        public Builder beforeLoad(Runnable check) {
            this.beforeLoad = Objects.requireNonNull(check, "check");
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
