package com.convplatform.hook.config;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** All settings of hook-service, prefix {@code hook}. */
@ConfigMapping(prefix = "hook")
public interface HookConfig {

    /** Directory for the embedded database and the generated local signing CA and key. */
    @WithDefault("./data/hook")
    String dataDir();

    /**
     * The URL sent in {@code signature-certificate-url}: where receivers download the signing certificate. Its host
     * is the SAN of the generated signing certificate.
     */
    @WithDefault("https://hooks.platform.example/platform/hooks/certificate/")
    String certificateUrl();

    /** The signing identity. */
    Signing signing();

    /** The intake used by the other services. */
    Internal internal();

    /** The operator API. */
    Admin admin();

    /** Where account webhook URLs come from. */
    Management management();

    /** Delivery. */
    Delivery delivery();

    /** The rule that disables an endpoint that has failed for a long time. */
    Endpoints endpoints();

    /** A local HTTPS listener for the certificate document only (a seam for local runs, off by default). */
    LocalHttps localHttps();

    interface LocalHttps {
        /**
         * Port of an HTTPS listener on 127.0.0.1 that serves {@code /platform/hooks/certificate/} with the signing
         * certificate as its TLS certificate, so receivers on this machine can download it as they would in
         * production (with {@code --resolve <host>=127.0.0.1:<port>}). Unset (the default): no listener; in
         * production an ingress serves the certificate URL on 443.
         */
        Optional<Integer> port();
    }

    interface Signing {
        /** PEM private key (RSA) that signs hooks. Unset: a local CA and key are generated under the data directory. */
        Optional<String> keyFile();

        /** PEM chain for that key, signing certificate first. Required with key-file. */
        Optional<String> chainFile();
    }

    interface Internal {
        /** Bearer key of /internal/v1 (env HOOK_INTERNAL_API_KEY). Unset: intake refuses every call. */
        Optional<String> apiKey();
    }

    interface Admin {
        /** Bearer key of the operator API (env HOOK_ADMIN_API_KEY). Unset: every operator call is refused. */
        Optional<String> apiKey();
    }

    interface Management {
        /** Base URL of management-service. */
        @WithDefault("http://localhost:8081")
        String url();

        /** The internal key management-service expects. */
        Optional<String> internalApiKey();

        /** How long an account's webhook URL is cached. */
        @WithDefault("PT30S")
        Duration cacheTtl();
    }

    interface Delivery {
        /** Waits before each retry; after the last one the delivery is dead-lettered. */
        @WithDefault("PT5S,PT5M,PT30M,PT2H,PT5H,PT10H,PT10H")
        List<Duration> retrySchedule();

        /**
         * How often due deliveries are looked for when the queue seemed empty. Events taken in by this replica are
         * picked up at once, without waiting for the poll.
         */
        @WithDefault("1s")
        String pollInterval();

        /** Most deliveries claimed at once. */
        @WithDefault("32")
        int batchSize();

        /** Most deliveries a replica holds at once (in flight or waiting for their endpoint). */
        @WithDefault("64")
        int maxInFlight();

        /** Most deliveries in flight at once to one account's endpoint. */
        @WithDefault("4")
        int perEndpoint();

        /** How long a claimed delivery is leased; a replica that dies mid-delivery loses the lease after this. */
        @WithDefault("PT60S")
        Duration lease();

        /** Connect time-out to the receiver. */
        @WithDefault("PT3S")
        Duration connectTimeout();

        /** Time allowed for the receiver's answer. */
        @WithDefault("PT10S")
        Duration readTimeout();

        /**
         * Test seam, off by default: allow delivery to loopback, private, link-local and other internal addresses
         * (SSRF guard off).
         */
        @WithDefault("false")
        boolean allowPrivateNetworks();

        /**
         * Test and staging seam, off by default: {@code host=address} pairs; a hook to that host connects to that
         * address instead of what the name resolves to (like curl's {@code --resolve}, the URL's port). The SSRF
         * guard still checks the address, and TLS still checks the host.
         */
        Optional<List<String>> resolve();

        /**
         * Test and staging seam, off by default: a PEM file of CA certificates trusted for HTTPS endpoints in addition
         * to the JDK's default trust store.
         */
        Optional<String> trustStore();
    }

    interface Endpoints {
        /** Whether the rule runs at all; operators can always disable and enable by hand. */
        @WithDefault("true")
        boolean autoDisable();

        /** An endpoint is disabled once every attempt has failed for at least this long ... */
        @WithDefault("P3D")
        Duration disableAfter();

        /** ... and at least this many attempts in a row have failed (so one slow retry does not disable it). */
        @WithDefault("20")
        int disableMinFailures();
    }
}
