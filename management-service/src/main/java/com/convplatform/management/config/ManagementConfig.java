package com.convplatform.management.config;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.PositiveOrZero;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * The settings of management-service (README, Configuration). Single values are checked by the constraints here,
 * relations between settings by {@link ManagementConfigChecks}.
 */
@ConfigMapping(prefix = "management")
public interface ManagementConfig {
    /** Directory of the generated JWT signing key (unless management.jwt.key-file names one). */
    @WithDefault("./data/management")
    String dataDir();

    Admin admin();

    Internal internal();

    Jwt jwt();

    CertFetch certFetch();

    /** Test and staging seam: a PEM file of extra roots that signing chains may lead to. */
    Optional<String> trustAnchors();

    RateLimit rateLimit();

    Blocks blocks();

    /** Seconds either way a request's timestamp may differ from the server clock (spec: 150). */
    @WithDefault("150")
    @Positive
    int timestampToleranceSeconds();

    interface RateLimit {
        /**
         * Refused signed requests per window from one source (an IPv4 address, an IPv6 /64); past it the source's
         * requests are refused before any work (0: no limit).
         */
        @WithDefault("20")
        @PositiveOrZero
        int failuresPerSource();

        /** Signed requests per window from one source: an IPv4 address, an IPv6 /64 (0: no limit). */
        @WithDefault("60")
        @PositiveOrZero
        int perSource();

        /** Verified signed requests per window for one account, from all sources (0: no limit). */
        @WithDefault("120")
        @PositiveOrZero
        int perAccount();

        /** The rolling window of both limits and of {@code cert-fetch.downloads-per-account}. */
        @WithDefault("PT1M")
        Duration window();
    }

    interface Blocks {
        /** How often each replica reads the blocks and purges recorded through the others. */
        @WithDefault("PT5S")
        Duration refresh();
    }

    interface Admin {
        /** Bearer key of the operator API; unset, the API is closed. */
        Optional<String> apiKey();

        /** Accept http:// webhook URLs (local development only). */
        @WithDefault("false")
        boolean allowHttpWebhooks();
    }

    interface Internal {
        /** Bearer key of /internal/v1; unset, the API is closed. */
        Optional<String> apiKey();
    }

    interface Jwt {
        @WithDefault("platform-management")
        String issuer();

        @WithDefault("platform-api")
        String audience();

        @WithDefault("PT1H")
        Duration lifetime();

        /** PEM file of the EC P-256 signing key; unset, a key is generated under the data directory. */
        Optional<String> keyFile();

        /** PEM files of EC P-256 keys (private or public) published in the JWKS, never used to sign. */
        Optional<List<String>> publishedKeyFiles();
    }

    interface CertFetch {
        @WithDefault("PT2S")
        Duration connectTimeout();

        /** The whole download's deadline, from the host name lookup to the last byte. */
        @WithDefault("PT5S")
        Duration totalTimeout();

        /** Chain downloads from one host at once; one more is refused 503 at once. */
        @WithDefault("2")
        @Positive
        int perHost();

        /** Chain downloads per account per {@code rate-limit.window}; cache hits do not count (0: no limit). */
        @WithDefault("20")
        @PositiveOrZero
        int downloadsPerAccount();

        /** How long a failed chain URL is answered with its failure without a new download (0: not at all). */
        @WithDefault("PT15S")
        Duration failureMemory();

        @WithDefault("65536")
        @Positive
        int maxBytes();

        /** Chain URLs kept in the cache. */
        @WithDefault("1000")
        @Positive
        int cacheSize();

        /** A cached chain is downloaded again after this long. */
        @WithDefault("PT1H")
        Duration cacheMaxAge();

        /** Test and staging seam: host=address:port pairs to connect to (like curl --resolve); TLS checks the host. */
        Optional<List<String>> resolve();

        /** Test and staging seam: a PEM file of extra CAs trusted for the HTTPS download. */
        Optional<String> trustStore();

        /** Seam for a private deployment: allow chain hosts that resolve to non-public addresses. */
        @WithDefault("false")
        boolean allowPrivateNetworks();
    }
}
