package com.convplatform.crypto.management;

import static com.convplatform.crypto.FailureCode.CERT_HEADERS;
import static com.convplatform.crypto.FailureCode.CERT_UNKNOWN;
import static com.convplatform.crypto.FailureCode.SIGNATURE_MISMATCH;

import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

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

    private ManagementRequestVerifier(Builder b) {
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
        ChainCache.Entry entry = cache.getValid(key, loader);

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

    private ValidatedChain loadChain(CertificateUrl url, String fqdn) throws VerificationException {
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
        private Builder() {
            super(TimestampWindow.MANAGEMENT, 1000);
        }

        public ManagementRequestVerifier build() {
            Objects.requireNonNull(trustAnchors(), "trustAnchors");
            Objects.requireNonNull(fetcher(), "fetcher");
            return new ManagementRequestVerifier(this);
        }
    }
}
