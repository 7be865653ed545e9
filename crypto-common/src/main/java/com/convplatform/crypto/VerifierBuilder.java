package com.convplatform.crypto;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

import com.convplatform.crypto.chain.TrustAnchors;
import com.convplatform.crypto.fetch.CertificateFetcher;
import com.convplatform.crypto.sig.CryptoProviders;

/**
 * What the management-request verifier and the hook verifier are both built from: trust, download, clock, timestamp
 * window, providers and certificate cache. Each verifier's builder extends this and adds its own parts.
 *
 * @param <B> the concrete builder, returned by every setter for chaining
 */
public abstract class VerifierBuilder<B extends VerifierBuilder<B>> {
    private TrustAnchors trustAnchors;
    private CertificateFetcher fetcher;
    private Clock clock = Clock.systemUTC();
    private Duration tolerance;
    private CryptoProviders providers = CryptoProviders.recommended();
    private int cacheSize;
    private Duration cacheMaxAge = Duration.ofHours(1);
    private Duration refetchAfter = Duration.ofSeconds(30);

    protected VerifierBuilder(Duration tolerance, int cacheSize) {
        this.tolerance = tolerance;
        this.cacheSize = cacheSize;
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    /** Roots that chains must lead to. */
    public B trustAnchors(TrustAnchors anchors) {
        this.trustAnchors = anchors;
        return self();
    }

    /** How certificates are downloaded. */
    public B fetcher(CertificateFetcher fetcher) {
        this.fetcher = fetcher;
        return self();
    }

    /** The clock for validity and timestamp checks (default: the system's, UTC). */
    public B clock(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        return self();
    }

    /** The timestamp window (spec section 8: 150 s for management requests, 120 s for hooks). */
    public B tolerance(Duration tolerance) {
        this.tolerance = Objects.requireNonNull(tolerance, "tolerance");
        return self();
    }

    /** Which providers verify which signature family (default: {@link CryptoProviders#recommended()}). */
    public B providers(CryptoProviders providers) {
        this.providers = Objects.requireNonNull(providers, "providers");
        return self();
    }

    /** Most certificate URLs kept in the cache. */
    public B cacheSize(int size) {
        this.cacheSize = size;
        return self();
    }

    /** A cached certificate is downloaded again after this long (default 1 h). */
    public B cacheMaxAge(Duration age) {
        this.cacheMaxAge = Objects.requireNonNull(age, "age");
        return self();
    }

    /**
     * After a signature mismatch, a cached certificate older than this is downloaded once more, so a rotated key is
     * picked up without letting bad requests trigger a download each (default 30 s).
     */
    public B refetchAfter(Duration age) {
        this.refetchAfter = Objects.requireNonNull(age, "age");
        return self();
    }

    public TrustAnchors trustAnchors() {
        return trustAnchors;
    }

    public CertificateFetcher fetcher() {
        return fetcher;
    }

    public Clock clock() {
        return clock;
    }

    public Duration tolerance() {
        return tolerance;
    }

    public CryptoProviders providers() {
        return providers;
    }

    public int cacheSize() {
        return cacheSize;
    }

    public Duration cacheMaxAge() {
        return cacheMaxAge;
    }

    public Duration refetchAfter() {
        return refetchAfter;
    }
}
