package com.convplatform.management.config;

import java.time.Duration;
import java.util.List;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;

import com.convplatform.crypto.fetch.HostOverrides;
import com.convplatform.management.token.KeyFiles;
import com.convplatform.support.ConfigChecks;

import io.quarkus.runtime.StartupEvent;

/** Stops the service at start when its settings cannot work together (README, "Checked at start"). */
@ApplicationScoped
public class ManagementConfigChecks {
    void check(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) StartupEvent event, ManagementConfig config) {
        of(config).throwIfAny();
    }

    public static ConfigChecks of(ManagementConfig config) {
        ManagementConfig.CertFetch fetch = config.certFetch();
        ConfigChecks checks = ConfigChecks.of("management-service")
                .positive("management.jwt.lifetime", config.jwt().lifetime())
                .positive("management.blocks.refresh", config.blocks().refresh())
                .positive("management.cert-fetch.connect-timeout", fetch.connectTimeout())
                .positive("management.cert-fetch.total-timeout", fetch.totalTimeout())
                .positive("management.cert-fetch.cache-max-age", fetch.cacheMaxAge())
                .notNegative("management.cert-fetch.failure-memory", fetch.failureMemory())
                .differ("management.admin.api-key", config.admin().apiKey(), "management.internal.api-key",
                        config.internal().apiKey());
        checks.require(config.jwt().lifetime().compareTo(Duration.ofHours(1)) <= 0,
                "management.jwt.lifetime (" + config.jwt().lifetime() + ") must be at most PT1H: a token outlives a"
                        + " disable or a block by at most its lifetime where nothing polls the revocation list",
                "management.jwt.lifetime");
        checks.require(config.rateLimit().window().compareTo(Duration.ofSeconds(1)) >= 0,
                "management.rate-limit.window (" + config.rateLimit().window() + ") must be at least 1 s",
                "management.rate-limit.window");
        checks.require(fetch.connectTimeout().compareTo(fetch.totalTimeout()) <= 0,
                "management.cert-fetch.connect-timeout (" + fetch.connectTimeout() + ") must not be longer than"
                        + " management.cert-fetch.total-timeout (" + fetch.totalTimeout() + "), the time allowed for"
                        + " the whole download, connection included",
                "management.cert-fetch.connect-timeout", "management.cert-fetch.total-timeout");
        KeyFiles.checkKeyFiles(config.jwt(), checks);
        // the test seams' files and entries, read again by Producers once these pass: each failure names its setting
        fetch.trustStore().ifPresent(file -> readable(checks, "management.cert-fetch.trust-store",
                () -> Producers.readPem(file)));
        config.trustAnchors().ifPresent(file -> readable(checks, "management.trust-anchors",
                () -> Producers.readPem(file)));
        readable(checks, "management.cert-fetch.resolve", () -> HostOverrides.parse(fetch.resolve().orElse(List.of())));
        return checks;
    }

    private static void readable(ConfigChecks checks, String key, Runnable read) {
        try {
            read.run();
        } catch (RuntimeException e) {
            checks.require(false, key + ": " + e.getMessage(), key);
        }
    }
}
