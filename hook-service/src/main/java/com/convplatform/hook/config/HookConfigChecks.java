package com.convplatform.hook.config;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;

import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.url.HookCertUrlRule;
import com.convplatform.hook.delivery.DeliveryAttempt;
import com.convplatform.hook.signing.SigningChecks;
import com.convplatform.support.ConfigChecks;

import io.quarkus.runtime.StartupEvent;

/** Stops hook-service at start, before any claim, when its settings cannot work together (README). */
@ApplicationScoped
public class HookConfigChecks {
    void check(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) StartupEvent event, HookConfig config,
            Clock clock) {
        of(config, clock).throwIfAny();
    }

    /** The problems of {@code config}; the signing files' dates are compared with {@code clock}'s now. */
    public static ConfigChecks of(HookConfig config, Clock clock) {
        ConfigChecks checks = ConfigChecks.of("hook-service");
        HookConfig.Delivery d = config.delivery();
        checks.positive("hook.delivery.connect-timeout", d.connectTimeout())
                .positive("hook.delivery.read-timeout", d.readTimeout())
                .positive("hook.delivery.poll-interval", d.pollInterval())
                .notNegative("hook.delivery.claim-delay", d.claimDelay())
                .notNegative("hook.delivery.shutdown-grace", d.shutdownGrace())
                .notNegative("hook.management.cache-ttl", config.managementCacheTtl())
                .positive("hook.endpoints.disable-after", config.disableAfter())
                .positive("hook.delivery.vacuum-interval", d.vacuumInterval())
                .positive("hook.intake.duplicate-window", config.intake().duplicateWindow())
                .positive("hook.retention.interval", config.retention().interval())
                .httpUrl("hook.management.url", config.managementUrl())
                .present("hook.management.internal-api-key", config.managementInternalApiKey(), "management-service"
                        + " refuses every account lookup (401), so no hook is ever sent")
                .differ("hook.admin.api-key", config.adminApiKey(), "hook.internal.api-key", config.internalApiKey());
        Duration needed = DeliveryAttempt.longestAttempt(d.connectTimeout(), d.readTimeout())
                .plus(DeliveryAttempt.LEASE_MARGIN);
        checks.require(d.lease().compareTo(needed) > 0, "hook.delivery.lease (" + d.lease() + ") must be longer than "
                + needed + ": an attempt may take 2 x hook.delivery.connect-timeout (" + d.connectTimeout()
                + ", the lookup, then the connection) + hook.delivery.read-timeout (" + d.readTimeout() + "), and a"
                + " hook is sent only with " + DeliveryAttempt.LEASE_MARGIN.toSeconds() + " s of its lease to spare;"
                + " with this lease none would ever be sent", "hook.delivery.lease", "hook.delivery.connect-timeout",
                "hook.delivery.read-timeout");
        Duration period = config.retention().period();
        checks.require(period.compareTo(Duration.ofDays(1)) >= 0, "hook.retention.period (" + period + ") must be at"
                + " least P1D: history is kept and dropped a day at a time", "hook.retention.period");
        checks.require(config.retention().interval().compareTo(Duration.ofDays(1)) <= 0, "hook.retention.interval ("
                + config.retention().interval() + ") must be at most P1D: each run makes the next days' partitions,"
                + " and rows of a day with none could not be written", "hook.retention.interval");
        checks.require(config.intake().duplicateWindow().compareTo(period) <= 0, "hook.intake.duplicate-window ("
                + config.intake().duplicateWindow() + ") must not be longer than hook.retention.period (" + period
                + "): the history it is checked against is kept no longer", "hook.intake.duplicate-window",
                "hook.retention.period");
        String key = "hook.delivery.retry-schedule";
        List<Duration> schedule = d.retrySchedule();
        for (int i = 0; i < schedule.size(); i++) {
            Duration wait = schedule.get(i);
            checks.require(wait.compareTo(Duration.ZERO) > 0, key + " (" + schedule + "): wait " + (i + 1) + " ("
                    + wait + ") must be longer than zero", key);
            if (i > 0 && wait.compareTo(schedule.get(i - 1)) < 0) { // almost always a typo
                checks.require(false, key + " (" + schedule + "): wait " + (i + 1) + " (" + wait + ") is shorter than"
                        + " wait " + i + " (" + schedule.get(i - 1) + "); the waits must not get shorter", key);
            }
        }
        Duration retried = schedule.stream().reduce(Duration.ZERO, Duration::plus);
        checks.require(retried.compareTo(period) < 0, "hook.retention.period (" + period + ") must be longer than the"
                + " waits of hook.delivery.retry-schedule together (" + retried + "): a delivery's first attempts would"
                + " be dropped while it is still being retried", "hook.retention.period", key);
        String url = config.certificateUrl();
        String urlProblem = certificateUrlProblem(url);
        checks.require(urlProblem == null, "hook.certificate-url (" + url + ") would be refused by every receiver (spec"
                + " 5.2): " + urlProblem, "hook.certificate-url");
        boolean keyFile = config.signingKeyFile().isPresent();
        String set = keyFile ? "hook.signing.key-file" : "hook.signing.chain-file";
        checks.require(keyFile == config.signingChainFile().isPresent(), "hook.signing.key-file and"
                + " hook.signing.chain-file are set together or not at all (now only " + set + " is set): without"
                + " both, hooks would be signed with a generated local key",
                keyFile ? "hook.signing.chain-file" : "hook.signing.key-file");
        checks.require(keyFile || config.signingChainFile().isPresent() || config.signingDevelopmentCa(),
                "hook.signing.key-file and hook.signing.chain-file are not set: hooks would be signed with a key no"
                        + " receiver trusts. Set both (production: the secret hook-service, docs/operations.md), or set"
                        + " hook.signing.development-ca=true for a local platform with a generated CA",
                "hook.signing.key-file", "hook.signing.chain-file", "hook.signing.development-ca");
        SigningChecks.checkFiles(config, clock.instant(), checks);
        return checks;
    }

    /**
     * Why receivers would refuse this certificate URL (spec 5.2 step 1: https, port 443 if any, path exactly
     * {@value HookCertUrlRule#PATH}, a host under the platform's domain), or null. The receivers' platform domain is not
     * known here, so the host's own parent domain stands in for it: the host needs at least three labels.
     */
    static String certificateUrlProblem(String url) {
        try {
            String host = URI.create(url.trim()).getHost();
            int dot = host == null ? -1 : host.indexOf('.');
            if (dot < 0 || host.indexOf('.', dot + 1) < 0) {
                return "its host must be a subdomain of the platform's domain, such as hooks.platform.example";
            }
            HookCertUrlRule.forDomains(host.substring(dot + 1)).check(url);
            return null;
        } catch (IllegalArgumentException | VerificationException e) {
            return e.getMessage();
        }
    }
}
