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
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.smallrye.faulttolerance.api.Guard;
import io.smallrye.faulttolerance.api.RateLimitException;
import io.smallrye.faulttolerance.api.RateLimitType;

/** The signed API's budgets (README, Decisions); the keys are bounded, so a flood of addresses cannot grow the heap. */
@ApplicationScoped
@Startup
// The budgets' cache (maximum size, expiry after access) makes nodes of this class, which Caffeine finds by name and
// quarkus-caffeine does not register: without it the native executable fails at start.
@RegisterForReflection(classNames = "com.github.benmanes.caffeine.cache.PSAMS")
public class RequestLimits {
    static final int KEYS = 10_000;

    private final Duration window;
    private final Budget sources;
    private final Budget accounts;
    private final Budget downloads;
    private final MeterRegistry metrics;

    public RequestLimits(ManagementConfig config, MeterRegistry metrics) {
        this.window = config.rateLimit().window();
        this.sources = budget("management.rate-limit.per-source", config.rateLimit().perSource());
        this.accounts = budget("management.rate-limit.per-account", config.rateLimit().perAccount());
        this.downloads = budget("management.cert-fetch.downloads-per-account",
                config.certFetch().downloadsPerAccount());
        this.metrics = metrics;
    }

    public void checkSource(String address) {
        check(sources, address, "source", "from ");
    }

    public void checkAccount(String fqdn) {
        check(accounts, fqdn, "account", "for the account ");
    }

    /** The verifier's download gate. */
    public void checkDownload(String fqdn, CertificateUrl url) throws VerificationException {
        long waitMillis = take(downloads, fqdn, "download");
        if (waitMillis > 0) {
            throw new VerificationException(FailureCode.CERT_FETCH_BUSY, downloads.limit
                    + " certificate chains were downloaded for the account " + fqdn + " in the last "
                    + window.toSeconds() + " s (the most); " + url + " was not downloaded. Send the request again in "
                    + seconds(waitMillis) + " s; requests naming a chain URL that was downloaded lately are served"
                    + " from the cache and do not count");
        }
    }

    private void check(Budget budget, String key, String kind, String whose) {
        long waitMillis = take(budget, key, kind);
        if (waitMillis > 0) {
            int retry = seconds(waitMillis);
            throw new ApiException(429, "RATE_LIMITED", budget.limit + " signed requests " + whose + key
                    + " in the last " + window.toSeconds() + " s are the most allowed (" + budget.setting
                    + "); send it again in " + retry + " s", retry);
        }
    }

    private static int seconds(long millis) {
        return (int) Math.max(1, (millis + 999) / 1000);
    }

    private Budget budget(String setting, int limit) {
        return new Budget(setting, limit,
                Caffeine.newBuilder().maximumSize(KEYS).expireAfterAccess(window.multipliedBy(2)).build());
    }

    /** 0 when the key may go ahead (one permit taken), otherwise the milliseconds until it may (counted as kind). */
    private long take(Budget budget, String key, String kind) {
        if (budget.limit == 0) {
            return 0;
        }
        try {
            budget.guards.get(key, k -> Guard.create().withRateLimit().limit(budget.limit)
                    .window(window.toMillis(), ChronoUnit.MILLIS).type(RateLimitType.ROLLING).done().build())
                    .get(() -> Boolean.TRUE, Boolean.class);
            return 0;
        } catch (RateLimitException e) {
            metrics.counter("management.rate_limited", "limit", kind).increment();
            return Math.max(1, e.getRetryAfterMillis());
        }
    }

    private record Budget(String setting, int limit, Cache<String, Guard> guards) {
    }
}
