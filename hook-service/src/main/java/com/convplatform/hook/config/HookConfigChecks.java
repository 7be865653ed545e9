package com.convplatform.hook.config;

import java.time.Duration;
import java.util.List;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;

import com.convplatform.hook.delivery.DeliveryWorker;
import com.convplatform.support.ConfigChecks;

import io.quarkus.runtime.StartupEvent;

/**
 * Stops hook-service at start when its settings cannot work together (README, Configuration, "Checked at start"):
 * before any delivery is claimed, every broken relation is listed in one message naming the settings. Single values
 * out of range are refused earlier by the Bean Validation constraints of {@link HookConfig}.
 */
@ApplicationScoped
public class HookConfigChecks {
    void check(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) StartupEvent event, HookConfig config) {
        of(config).throwIfAny();
    }

    /** Every relation, checked; the caller throws. */
    public static ConfigChecks of(HookConfig config) {
        ConfigChecks checks = ConfigChecks.of("hook-service");
        HookConfig.Delivery d = config.delivery();
        checks.positive("hook.delivery.connect-timeout", d.connectTimeout())
                .positive("hook.delivery.read-timeout", d.readTimeout())
                .positive("hook.delivery.poll-interval", d.pollInterval())
                .notNegative("hook.delivery.shutdown-grace", d.shutdownGrace())
                .notNegative("hook.management.cache-ttl", config.managementCacheTtl())
                .positive("hook.endpoints.disable-after", config.disableAfter());
        Duration needed = DeliveryWorker.longestAttempt(d.connectTimeout(), d.readTimeout())
                .plus(DeliveryWorker.LEASE_MARGIN);
        checks.require(d.lease().compareTo(needed) > 0, "hook.delivery.lease (" + d.lease() + ") must be longer than "
                + needed + ": an attempt may take 2 x hook.delivery.connect-timeout (" + d.connectTimeout()
                + ", the lookup, then the connection) + hook.delivery.read-timeout (" + d.readTimeout() + "), and a"
                + " hook is sent only with " + DeliveryWorker.LEASE_MARGIN.toSeconds() + " s of its lease to spare;"
                + " with this lease none would ever be sent", "hook.delivery.lease", "hook.delivery.connect-timeout",
                "hook.delivery.read-timeout");
        retrySchedule(checks, d.retrySchedule());
        boolean key = config.signingKeyFile().isPresent();
        boolean chain = config.signingChainFile().isPresent();
        checks.require(key == chain, "hook.signing.key-file and hook.signing.chain-file are set together or not at all"
                + " (now only " + (key ? "hook.signing.key-file" : "hook.signing.chain-file") + " is set): without"
                + " both, hooks would be signed with a generated local key",
                key
                        ? "hook.signing.chain-file"
                        : "hook.signing.key-file");
        return checks;
    }

    /** Each wait longer than zero and none shorter than the one before (a shorter one is almost always a typo). */
    private static void retrySchedule(ConfigChecks checks, List<Duration> schedule) {
        String key = "hook.delivery.retry-schedule";
        for (int i = 0; i < schedule.size(); i++) {
            Duration wait = schedule.get(i);
            checks.require(wait.compareTo(Duration.ZERO) > 0, key + " (" + schedule + "): wait " + (i + 1) + " ("
                    + wait + ") must be longer than zero", key);
            if (i > 0 && wait.compareTo(schedule.get(i - 1)) < 0) {
                checks.require(false, key + " (" + schedule + "): wait " + (i + 1) + " (" + wait + ") is shorter than"
                        + " wait " + i + " (" + schedule.get(i - 1) + "); the waits must not get shorter", key);
            }
        }
    }
}
