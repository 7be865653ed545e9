package com.convplatform.management.signed;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

import jakarta.enterprise.context.ApplicationScoped;

import com.convplatform.crypto.FailureCode;
import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.url.CertificateUrl;
import com.convplatform.management.config.ManagementConfig;
import com.convplatform.support.ApiException;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import io.smallrye.faulttolerance.api.Guard;
import io.smallrye.faulttolerance.api.RateLimitException;
import io.smallrye.faulttolerance.api.RateLimitType;

/**
 * The signed API's budgets, each a rolling-window rate limit of SmallRye Fault Tolerance, one {@link Guard} per key:
 * requests per source address and per account (answered 429 with Retry-After, before any verification work), and chain
 * downloads per account (a junk request under a new path of an account's FQDN costs its server a download only while
 * the budget lasts; then 503 CERT_FETCH_BUSY). Guards of keys not seen for two windows are dropped; at most
 * {@value #KEYS} keys of each kind are kept, so a flood of source addresses cannot grow the heap.
 */
@ApplicationScoped
@Startup
public class RequestLimits {
    static final int KEYS = 10_000;

    private final Duration window;
    private final Budget sources;
    private final Budget accounts;
    private final Budget downloads;
    private final MeterRegistry metrics;

    public RequestLimits(ManagementConfig config, MeterRegistry metrics) {
        var limits = config.rateLimit();
        this.window = limits.window();
        this.sources = new Budget("management.rate-limit.per-source", limits.perSource());
        this.accounts = new Budget("management.rate-limit.per-account", limits.perAccount());
        this.downloads = new Budget("management.cert-fetch.downloads-per-account",
                config.certFetch().downloadsPerAccount());
        this.metrics = metrics;
    }

    /** Refuses the request (429) when its source address has used its budget. */
    public void checkSource(String address) {
        long waitMillis = sources.take(address);
        if (waitMillis > 0) {
            throw limited("source", "from " + address, sources, waitMillis);
        }
    }

    /** Refuses the request (429) when the account it names has used its budget, whatever the source. */
    public void checkAccount(String fqdn) {
        long waitMillis = accounts.take(fqdn);
        if (waitMillis > 0) {
            throw limited("account", "for the account " + fqdn, accounts, waitMillis);
        }
    }

    /** The verifier's download gate: refuses a chain download when the account has used its download budget. */
    public void checkDownload(String fqdn, CertificateUrl url) throws VerificationException {
        long waitMillis = downloads.take(fqdn);
        if (waitMillis > 0) {
            metrics.counter("management.rate_limited", "limit", "download").increment();
            throw new VerificationException(FailureCode.CERT_FETCH_BUSY, downloads.limit
                    + " certificate chains were downloaded for the account " + fqdn + " in the last "
                    + window.toSeconds() + " s (the most); " + url + " was not downloaded. Send the request again in "
                    + seconds(waitMillis) + " s; requests naming a chain URL that was downloaded lately are served"
                    + " from the cache and do not count");
        }
    }

    private ApiException limited(String kind, String whose, Budget budget, long waitMillis) {
        metrics.counter("management.rate_limited", "limit", kind).increment();
        int retry = seconds(waitMillis);
        return new ApiException(429, "RATE_LIMITED", budget.limit + " signed requests " + whose + " in the last "
                + window.toSeconds() + " s are the most allowed (" + budget.setting + "); send it again in " + retry
                + " s", retry);
    }

    private static int seconds(long millis) {
        return (int) Math.max(1, (millis + 999) / 1000);
    }

    /** One kind of budget: its setting, its limit, and a guard per key. */
    private final class Budget {
        final String setting;
        final int limit;
        final Cache<String, Guard> guards;

        Budget(String setting, int limit) {
            if (limit < 0) {
                throw new IllegalStateException(setting + " must be 0 (no limit) or more, not " + limit);
            }
            this.setting = setting;
            this.limit = limit;
            this.guards = Caffeine.newBuilder().maximumSize(KEYS).expireAfterAccess(window.multipliedBy(2)).build();
        }

        /** 0 when the key may go ahead (one permit taken), otherwise how many milliseconds until it may. */
        long take(String key) {
            if (limit == 0) {
                return 0;
            }
            Guard guard = guards.get(key, k -> Guard.create().withRateLimit().limit(limit)
                    .window(window.toMillis(), ChronoUnit.MILLIS).type(RateLimitType.ROLLING).done().build());
            try {
                guard.call(() -> Boolean.TRUE, Boolean.class);
                return 0;
            } catch (RateLimitException e) {
                return Math.max(1, e.getRetryAfterMillis());
            } catch (Exception e) {
                throw new IllegalStateException("The rate limit of " + setting + " failed", e);
            }
        }
    }
}
