package com.convplatform.hook.config;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import jakarta.validation.constraints.Positive;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;

/** All settings of hook-service (README, Configuration); relations between settings: {@link HookConfigChecks}. */
@ConfigMapping(prefix = "hook")
public interface HookConfig {
    @WithDefault("./data/hook")
    String dataDir();

    @WithDefault("https://hooks.platform.example/platform/hooks/certificate/")
    String certificateUrl();

    @WithName("signing.key-file")
    Optional<String> signingKeyFile();

    @WithName("signing.chain-file")
    Optional<String> signingChainFile();

    /**
     * Without the two files: generate a local CA and signing key under hook.data-dir (./run-local.sh, dev, tests, load
     * tests). Off by default, so that a production start without its signing secret stops, naming it, instead of
     * signing with a key no receiver trusts.
     */
    @WithName("signing.development-ca")
    @WithDefault("false")
    boolean signingDevelopmentCa();

    @WithName("internal.api-key")
    Optional<String> internalApiKey();

    @WithName("admin.api-key")
    Optional<String> adminApiKey();

    /** Read by the REST client {@code management} (application.properties), as are the next two. */
    @WithName("management.url")
    String managementUrl();

    @WithName("management.cache-ttl")
    Duration managementCacheTtl();

    @WithName("management.internal-api-key")
    Optional<String> managementInternalApiKey();

    @WithName("local-https.port")
    Optional<Integer> localHttpsPort();

    Delivery delivery();

    Intake intake();

    Retention retention();

    @WithName("endpoints.auto-disable")
    @WithDefault("true")
    boolean autoDisable();

    @WithName("endpoints.disable-after")
    @WithDefault("P3D")
    Duration disableAfter();

    @WithName("endpoints.disable-min-failures")
    @WithDefault("20")
    @Positive
    int disableMinFailures();

    interface Intake {
        /**
         * How long after its delivery finished an event accepted again is still answered as a duplicate (always while
         * its delivery is unfinished). upload-service sends an event again within minutes when an answer was lost.
         */
        @WithDefault("P1D")
        Duration duplicateWindow();
    }

    interface Retention {
        /**
         * How long finished deliveries, their events and every attempt are kept (at least this, at most a day more);
         * unfinished deliveries are kept until they finish.
         */
        @WithDefault("P30D")
        Duration period();

        /** How often retention runs (and makes the next week's partitions). */
        @WithDefault("PT1H")
        Duration interval();
    }

    interface Delivery {
        @WithDefault("PT5S,PT5M,PT30M,PT2H,PT5H,PT10H,PT10H")
        List<Duration> retrySchedule();

        @WithDefault("1s")
        Duration pollInterval();

        /**
         * How long an idle dispatcher, woken by new events, waits before it claims: the events that arrive meanwhile
         * share the claim's transaction and, sent together, the outcome's. 0 claims at once. A claim that comes back
         * full is followed by the next at once, so a busy replica never waits.
         */
        @WithDefault("5ms")
        Duration claimDelay();

        @WithDefault("32")
        @Positive
        int batchSize();

        @WithDefault("64")
        @Positive
        int maxInFlight();

        @WithDefault("4")
        @Positive
        int perEndpoint();

        @WithDefault("PT60S")
        Duration lease();

        @WithDefault("PT15S")
        Duration shutdownGrace();

        @WithDefault("PT3S")
        Duration connectTimeout();

        @WithDefault("PT10S")
        Duration readTimeout();

        /** Seam for tests, off by default: no SSRF guard. */
        @WithDefault("false")
        boolean allowPrivateNetworks();

        Optional<List<String>> resolve();

        /**
         * Whether the service vacuums the queue table itself, every {@code vacuum-interval} (one replica at a time):
         * its rows are deleted as fast as they are inserted, and autovacuum may lag or be off.
         */
        @WithDefault("true")
        boolean vacuum();

        @WithDefault("PT1M")
        Duration vacuumInterval();

        Optional<String> trustStore();
    }
}
