package com.convplatform.management.config;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.PositiveOrZero;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * All settings of management-service, prefix {@code management}. Ranges of single values are checked by the constraints
 * here, relations between settings by {@link ManagementConfigChecks}.
 */
@ConfigMapping(prefix = "management")
public interface ManagementConfig {

    /** Directory for the embedded database and the generated JWT signing key. */
    @WithDefault("./data/management")
    String dataDir();

    Admin admin();

    Internal internal();

    Jwt jwt();

    /** Downloading certificate chains from SignatureCertChainUrl. */
    CertFetch certFetch();

    /** Test and staging seam, off unless set: extra roots (PEM file) signing chains may lead to, besides the JVM's. */
    Optional<String> trustAnchors();

    /** Rate limits of the signed API (answered 429 with Retry-After). */
    RateLimit rateLimit();

    /** Certificates blocked by fingerprint and chain-cache purges, shared by the replicas through the database. */
    Blocks blocks();

    /** Seconds either way a request's timestamp may differ from the server clock (spec: 150). */
    @WithDefault("150")
    @Positive
    int timestampToleranceSeconds();

    interface RateLimit {
        /** Most signed requests from one source address per window (0: no limit). */
        @WithDefault("60")
        @PositiveOrZero
        int perSource();

        /** Most signed requests naming one account (by fqdn) per window, from all sources (0: no limit). */
        @WithDefault("120")
        @PositiveOrZero
        int perAccount();

        /** The rolling window of both limits and of {@code cert-fetch.downloads-per-account}. */
        @WithDefault("PT1M")
        Duration window();
    }

    interface Blocks {
        /** How often each replica reads the blocks and purges recorded through other replicas. */
        @WithDefault("PT5S")
        Duration refresh();
    }

    interface Admin {
        /** Bearer key of the operator API (env MANAGEMENT_ADMIN_API_KEY). Unset: every operator call is refused. */
        Optional<String> apiKey();

        /** Accept http:// webhook URLs (local development only); https is required otherwise. */
        @WithDefault("false")
        boolean allowHttpWebhooks();
    }

    interface Internal {
        /** Bearer key for /internal/v1 (env MANAGEMENT_INTERNAL_API_KEY). Unset: every internal call is refused. */
        Optional<String> apiKey();
    }

    interface Jwt {
        /** The iss claim. */
        @WithDefault("platform-management")
        String issuer();

        /** The aud claim. */
        @WithDefault("platform-api")
        String audience();

        /** Token lifetime. */
        @WithDefault("PT1H")
        Duration lifetime();

        /**
         * PEM file with the EC P-256 private key that signs tokens (PKCS#8 or SEC1). Unset: a key is generated on
         * first start and kept under the data directory.
         */
        Optional<String> keyFile();

        /**
         * PEM files of more keys to publish in the JWKS after the signing key, never to sign with: the previous key
         * after a rotation (tokens it signed keep verifying until they expire), or the next key before one. Each
         * file holds an EC P-256 key, private (the old {@code key-file} as it was) or public ({@code PUBLIC KEY}).
         */
        Optional<List<String>> publishedKeyFiles();
    }

    interface CertFetch {
        /** Connect time-out for a chain download. */
        @WithDefault("PT2S")
        Duration connectTimeout();

        /** Time allowed for the whole download, from the host name lookup to the last byte. */
        @WithDefault("PT5S")
        Duration totalTimeout();

        /** Most chain downloads from one host at once; a request that would start one more is answered 503 at once. */
        @WithDefault("2")
        @Positive
        int perHost();

        /**
         * Most chain downloads for one account (by fqdn) per {@code rate-limit.window}; a request that would start one
         * more is answered 503 CERT_FETCH_BUSY (0: no limit). Requests served from the cache do not count.
         */
        @WithDefault("20")
        @PositiveOrZero
        int downloadsPerAccount();

        /**
         * How long a chain URL whose download or validation failed is answered with the same failure without a new
         * download (0: not at all). A customer who has just mended their chain server waits at most this long.
         */
        @WithDefault("PT15S")
        Duration failureMemory();

        /** Largest chain document accepted, in bytes. */
        @WithDefault("65536")
        @Positive
        int maxBytes();

        /** Most chain URLs kept in the cache. */
        @WithDefault("1000")
        @Positive
        int cacheSize();

        /** A cached chain is downloaded again after this long. */
        @WithDefault("PT1H")
        Duration cacheMaxAge();

        /**
         * Test and staging seam, off unless set: host=address:port pairs used only to connect for the download (like
         * curl --resolve). TLS still verifies the original host; the URL rules apply to the URL as sent.
         */
        Optional<List<String>> resolve();

        /** Test and staging seam, off unless set: extra CA certificates (PEM file) trusted for the HTTPS download. */
        Optional<String> trustStore();

        /**
         * Seam for a private deployment, off by default: download chains from hosts that resolve to private, loopback
         * or other non-public addresses (crypto-common's outbound-address guard refuses them otherwise).
         */
        @WithDefault("false")
        boolean allowPrivateNetworks();
    }
}
