package com.convplatform.hook.config;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import jakarta.validation.constraints.Positive;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;

/**
 * All settings of hook-service, prefix {@code hook}; the README's configuration table says what each one does. Ranges
 * of single values are checked by the constraints here, relations between settings by {@link HookConfigChecks}.
 */
@ConfigMapping(prefix = "hook")
public interface HookConfig {
    /** Directory for the embedded database and the generated local signing CA and key. */
    @WithDefault("./data/hook")
    String dataDir();

    /** Sent in {@code signature-certificate-url}; its host is the SAN of the generated signing certificate. */
    @WithDefault("https://hooks.platform.example/platform/hooks/certificate/")
    String certificateUrl();

    /** PEM key (RSA) that signs hooks; unset: a local CA and key are generated under the data directory. */
    @WithName("signing.key-file")
    Optional<String> signingKeyFile();

    /** PEM chain for that key, signing certificate first; required with the key file. */
    @WithName("signing.chain-file")
    Optional<String> signingChainFile();

    /** The key of /internal/v1 (env HOOK_INTERNAL_API_KEY); unset: intake refuses every call. */
    @WithName("internal.api-key")
    Optional<String> internalApiKey();

    /** The key of /admin/v1 (env HOOK_ADMIN_API_KEY); unset: every operator call is refused. */
    @WithName("admin.api-key")
    Optional<String> adminApiKey();

    /** management-service's base URL: the REST client {@code management}'s (application.properties). */
    @WithName("management.url")
    String managementUrl();

    /** How long a found or unknown account is cached: the cache {@code accounts}' expiry (application.properties). */
    @WithName("management.cache-ttl")
    Duration managementCacheTtl();

    /** The internal key management-service expects: the REST client's Authorization (application.properties). */
    @WithName("management.internal-api-key")
    Optional<String> managementInternalApiKey();

    /** Seam for local runs: an HTTPS listener on 127.0.0.1 serving only the certificate document; unset: none. */
    @WithName("local-https.port")
    Optional<Integer> localHttpsPort();

    Delivery delivery();

    /** The rule that disables an endpoint whose every attempt has failed for a long time (operators can always). */
    @WithName("endpoints.auto-disable")
    @WithDefault("true")
    boolean autoDisable();

    /** Disabled once every attempt has failed for at least this long ... */
    @WithName("endpoints.disable-after")
    @WithDefault("P3D")
    Duration disableAfter();

    /** ... and at least this many attempts in a row (so one slow retry does not disable it). */
    @WithName("endpoints.disable-min-failures")
    @WithDefault("20")
    @Positive
    int disableMinFailures();

    interface Delivery {
        /** Waits before each retry; after the last one the delivery is dead-lettered. */
        @WithDefault("PT5S,PT5M,PT30M,PT2H,PT5H,PT10H,PT10H")
        List<Duration> retrySchedule();

        /** How often due deliveries are looked for; intake wakes the dispatcher at once. */
        @WithDefault("1s")
        Duration pollInterval();

        /** Most deliveries claimed at once. */
        @WithDefault("32")
        @Positive
        int batchSize();

        /** Most deliveries a replica holds at once (sending or waiting for their endpoint); also its senders. */
        @WithDefault("64")
        @Positive
        int maxInFlight();

        /** Most deliveries in flight at once to one account's endpoint. */
        @WithDefault("4")
        @Positive
        int perEndpoint();

        /** How long a claim is leased; a replica that dies mid-delivery loses its deliveries after this. */
        @WithDefault("PT60S")
        Duration lease();

        /**
         * On shutdown (SIGTERM), how long attempts under way may take to end before they are cut off; then every lease
         * this replica still holds is handed back, due at once for the other replicas. With {@code
         * quarkus.shutdown.timeout} it must fit in the pod's {@code terminationGracePeriodSeconds} (README, Shutdown).
         */
        @WithDefault("PT15S")
        Duration shutdownGrace();

        @WithDefault("PT3S")
        Duration connectTimeout();

        @WithDefault("PT10S")
        Duration readTimeout();

        /** Seam, off by default: no SSRF guard (delivery to loopback, private and other internal addresses). */
        @WithDefault("false")
        boolean allowPrivateNetworks();

        /** Seam: {@code host=address} pairs, like curl's {@code --resolve}; the guard still checks the address. */
        Optional<List<String>> resolve();

        /** Seam: a PEM file of CA certificates trusted for HTTPS endpoints besides the JDK's. */
        Optional<String> trustStore();
    }
}
