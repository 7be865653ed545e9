package com.convplatform.hook.config;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** All settings of hook-service, prefix {@code hook}; the README's configuration table says what each one does. */
@ConfigMapping(prefix = "hook")
public interface HookConfig {
    /** Directory for the embedded database and the generated local signing CA and key. */
    @WithDefault("./data/hook")
    String dataDir();

    /** Sent in {@code signature-certificate-url}; its host is the SAN of the generated signing certificate. */
    @WithDefault("https://hooks.platform.example/platform/hooks/certificate/")
    String certificateUrl();

    Signing signing();

    Internal internal();

    Admin admin();

    Management management();

    Delivery delivery();

    Endpoints endpoints();

    LocalHttps localHttps();

    /** Seam for local runs: an HTTPS listener on 127.0.0.1 serving only the certificate document; unset: none. */
    interface LocalHttps {
        Optional<Integer> port();
    }

    /** PEM key (RSA) and chain (signing certificate first); unset: a local CA and key are generated. */
    interface Signing {
        Optional<String> keyFile();

        Optional<String> chainFile();
    }

    /** The key of /internal/v1 (env HOOK_INTERNAL_API_KEY); unset: intake refuses every call. */
    interface Internal {
        Optional<String> apiKey();
    }

    /** The key of /admin/v1 (env HOOK_ADMIN_API_KEY); unset: every operator call is refused. */
    interface Admin {
        Optional<String> apiKey();
    }

    /** management-service's account lookup (the REST client {@code management} takes its URL from here). */
    interface Management {
        @WithDefault("http://localhost:8081")
        String url();

        /** The internal key management-service expects. */
        Optional<String> internalApiKey();

        /** How long a found or unknown account is cached (the cache {@code accounts} is set to it). */
        @WithDefault("PT30S")
        Duration cacheTtl();
    }

    interface Delivery {
        /** Waits before each retry; after the last one the delivery is dead-lettered. */
        @WithDefault("PT5S,PT5M,PT30M,PT2H,PT5H,PT10H,PT10H")
        List<Duration> retrySchedule();

        /** How often due deliveries are looked for; intake wakes the dispatcher at once. */
        @WithDefault("1s")
        Duration pollInterval();

        /** Most deliveries claimed at once. */
        @WithDefault("32")
        int batchSize();

        /** Most deliveries a replica holds at once (sending or waiting for their endpoint); also its senders. */
        @WithDefault("64")
        int maxInFlight();

        /** Most deliveries in flight at once to one account's endpoint. */
        @WithDefault("4")
        int perEndpoint();

        /** How long a claim is leased; a replica that dies mid-delivery loses its deliveries after this. */
        @WithDefault("PT60S")
        Duration lease();

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

    /** The rule that disables an endpoint whose every attempt has failed for a long time. */
    interface Endpoints {
        @WithDefault("true")
        boolean autoDisable();

        /** Disabled once every attempt has failed for at least this long ... */
        @WithDefault("P3D")
        Duration disableAfter();

        /** ... and at least this many attempts in a row (so one slow retry does not disable it). */
        @WithDefault("20")
        int disableMinFailures();
    }
}
