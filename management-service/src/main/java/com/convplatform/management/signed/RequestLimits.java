package com.convplatform.management.signed;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.regex.Pattern;

import jakarta.enterprise.context.ApplicationScoped;

import com.convplatform.crypto.FailureCode;
import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.url.CertificateUrl;
import com.convplatform.management.config.ManagementConfig;
import com.convplatform.support.ApiException;
import com.convplatform.support.Workers;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The signed API's budgets (README, Decisions). A source (an IPv4 address, an IPv6 /64) has a budget of requests and
 * one of refusals; an account's budget is spent only by requests that verified, so junk naming it costs it nothing;
 * its chain-download budget is spent by new chain URLs, never by one that verified for it before (known-good). The
 * keys are bounded, so a flood of addresses cannot grow the heap.
 */
@ApplicationScoped
@Startup
// The budgets' cache (maximum size, expiry after access) makes nodes of this class, which Caffeine finds by name and
// quarkus-caffeine does not register: without it the native executable fails at start.
@RegisterForReflection(classNames = {"com.github.benmanes.caffeine.cache.PSAMS",
        "com.github.benmanes.caffeine.cache.PSWMS"})
public class RequestLimits {
    static final int KEYS = 10_000;
    /** A chain URL that verified for an account stays known-good this long after its last verification. */
    static final Duration KNOWN_GOOD = Duration.ofDays(1);
    private static final Pattern IPV4 = Pattern.compile("[0-9.]+");
    private static final Pattern IPV6 = Pattern.compile("\\[?[0-9a-fA-F:.]+(%[\\w.-]+)?]?");

    private final Duration window;
    private final Budget sources;
    private final Budget failures;
    private final Budget accounts;
    private final Budget downloads;
    private final Cache<String, Boolean> knownGood = Caffeine.newBuilder().maximumSize(KEYS)
            .expireAfterWrite(KNOWN_GOOD).build();
    /** Chain URLs named with an unknown FQDN lately, as the verifier remembers a failed URL (failure-memory). */
    private final Cache<String, Boolean> unknownUrls;
    private final MeterRegistry metrics;

    public RequestLimits(ManagementConfig config, MeterRegistry metrics) {
        this.window = config.rateLimit().window();
        this.sources = budget("management.rate-limit.per-source", config.rateLimit().perSource());
        this.failures = budget("management.rate-limit.failures-per-source", config.rateLimit().failuresPerSource());
        this.accounts = budget("management.rate-limit.per-account", config.rateLimit().perAccount());
        this.downloads = budget("management.cert-fetch.downloads-per-account",
                config.certFetch().downloadsPerAccount());
        Duration memory = config.certFetch().failureMemory();
        this.unknownUrls = memory.isZero() || memory.isNegative()
                ? null
                : Caffeine.newBuilder().maximumSize(KEYS).expireAfterWrite(memory).build();
        this.metrics = metrics;
    }

    /**
     * The download budget as a chain URL naming an unknown FQDN would spend it, were the FQDN known: nothing is
     * downloaded, and a URL named again within the failure memory spends nothing, as a failed download remembered by
     * the verifier does not. So the budget's 503 tells nobody whether the FQDN is a customer's.
     */
    public void checkUnknownDownload(String fqdn, CertificateUrl url) throws VerificationException {
        String key = fqdn + " " + url;
        if (unknownUrls != null && unknownUrls.getIfPresent(key) != null) {
            return;
        }
        checkDownload(fqdn, url);
        if (unknownUrls != null) {
            unknownUrls.put(key, Boolean.TRUE);
        }
    }

    /**
     * The source of an address: IPv4 addresses (an IPv4-mapped IPv6 one too) are themselves, an IPv6 address counts as
     * its /64, the smallest network a site is given, so that one client cannot be endless sources.
     */
    public static String source(String address) {
        if (address == null || address.isEmpty() || !(IPV4.matcher(address).matches()
                || (address.indexOf(':') >= 0 && IPV6.matcher(address).matches()))) {
            return address == null ? "unknown" : address; // not a literal address: never looked up
        }
        try {
            InetAddress a = InetAddress.getByName(address); // a literal: parsed, never resolved
            if (a instanceof Inet4Address) {
                return a.getHostAddress();
            }
            if (a instanceof Inet6Address) {
                byte[] b = a.getAddress();
                StringBuilder s = new StringBuilder();
                for (int i = 0; i < 8; i += 2) {
                    s.append(Integer.toHexString(((b[i] & 0xff) << 8) | (b[i + 1] & 0xff))).append(':');
                }
                return s.append(":/64").toString();
            }
            return address;
        } catch (UnknownHostException e) {
            return address;
        }
    }

    /** Before anything else: the source's request budget, and whether its refusals used up their own. */
    public void checkSource(String address) {
        String source = source(address);
        if (Workers.firstInRequest("management.rate-limit.per-source")) { // a request run again on a worker
            check(sources, source, "source", " signed requests from " + source);
        }
        long wait = failures.waitMillis(source);
        if (wait > 0) {
            refuse(failures, wait, "failures", " refused signed requests from " + source);
        }
    }

    /** A request from the address was refused before it verified: spent from the source's refusal budget. */
    public void failed(String address) {
        failures.take(source(address));
    }

    /** After verification: the account's budget, spent by verified requests only. */
    public void checkAccount(String fqdn) {
        if (Workers.firstInRequest("management.rate-limit.per-account")) {
            check(accounts, fqdn, "account", " verified signed requests for the account " + fqdn);
        }
    }

    /** A chain URL verified for the account: its downloads no longer count against the account's budget. */
    public void verified(String fqdn, String certificateSource) {
        if (certificateSource != null && !certificateSource.startsWith("uuid:")) {
            knownGood.put(fqdn + " " + certificateSource, Boolean.TRUE);
        }
    }

    /** The verifier's download gate: a known-good URL is always downloaded; others spend the account's budget. */
    public void checkDownload(String fqdn, CertificateUrl url) throws VerificationException {
        if (knownGood.getIfPresent(fqdn + " " + url) != null) {
            return;
        }
        long waitMillis = downloads.take(fqdn);
        if (waitMillis > 0) {
            metrics.counter("management.rate_limited", "limit", "download").increment();
            throw new VerificationException(FailureCode.CERT_FETCH_BUSY, downloads.limit
                    + " certificate chains were downloaded for the account " + fqdn + " in the last "
                    + window.toSeconds() + " s (the most); " + url + " was not downloaded. Send the request again in "
                    + seconds(waitMillis) + " s; requests naming a chain URL that was downloaded lately are served"
                    + " from the cache and do not count, nor do chain URLs that verified for the account before");
        }
    }

    private void check(Budget budget, String key, String kind, String what) {
        long waitMillis = budget.take(key);
        if (waitMillis > 0) {
            refuse(budget, waitMillis, kind, what);
        }
    }

    private void refuse(Budget budget, long waitMillis, String kind, String what) {
        metrics.counter("management.rate_limited", "limit", kind).increment();
        int retry = seconds(waitMillis);
        throw new ApiException(429, "RATE_LIMITED", budget.limit + what + " in the last " + window.toSeconds()
                + " s are the most allowed (" + budget.setting + "); send it again in " + retry + " s", retry);
    }

    private static int seconds(long millis) {
        return (int) Math.max(1, (millis + 999) / 1000);
    }

    private Budget budget(String setting, int limit) {
        return new Budget(setting, limit, window.toNanos(),
                Caffeine.newBuilder().maximumSize(KEYS).expireAfterAccess(window.multipliedBy(2)).build());
    }

    /** A rolling window per key: the times of the last {@code limit} permits taken. */
    private record Budget(String setting, int limit, long windowNanos, Cache<String, ArrayDeque<Long>> taken) {
        /** 0 when the key may go ahead (one permit taken), otherwise the milliseconds until it may. */
        long take(String key) {
            return permit(key, true);
        }

        /** The same without taking a permit. */
        long waitMillis(String key) {
            return permit(key, false);
        }

        private long permit(String key, boolean take) {
            if (limit == 0) {
                return 0;
            }
            ArrayDeque<Long> times = take ? taken.get(key, k -> new ArrayDeque<>()) : taken.getIfPresent(key);
            if (times == null) {
                return 0;
            }
            synchronized (times) {
                long now = System.nanoTime();
                while (!times.isEmpty() && now - times.peekFirst() >= windowNanos) {
                    times.pollFirst();
                }
                if (times.size() >= limit) {
                    return Math.max(1, (times.peekFirst() + windowNanos - now) / 1_000_000);
                }
                if (take) {
                    times.addLast(now);
                }
                return 0;
            }
        }
    }
}
