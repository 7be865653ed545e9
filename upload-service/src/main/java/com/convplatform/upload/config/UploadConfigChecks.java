package com.convplatform.upload.config;

import java.time.Duration;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;

import org.eclipse.microprofile.config.Config;

import com.convplatform.support.ConfigChecks;
import com.convplatform.upload.handoff.OutboxRepository;

import io.quarkus.runtime.StartupEvent;
import io.quarkus.runtime.configuration.MemorySize;

/** Stops upload-service at start when its settings cannot work together (README, "Checked at start"). */
@ApplicationScoped
public class UploadConfigChecks {
    /** What the form needs besides the file: text fields, part headers, boundaries. */
    public static final long FORM_ROOM = 64 * 1024;
    static final String MAX_BODY_SIZE = "quarkus.http.limits.max-body-size";
    static final String MAX_FIELD_SIZE = "quarkus.http.limits.max-form-attribute-size";

    void check(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) StartupEvent event, UploadConfig config,
            Config all) {
        of(config, all.getValue(MAX_BODY_SIZE, MemorySize.class).asLongValue(),
                all.getValue(MAX_FIELD_SIZE, MemorySize.class).asLongValue()).throwIfAny();
    }

    /** Every relation, checked (sizes in bytes); the caller throws. */
    public static ConfigChecks of(UploadConfig config, long maxBodySize, long maxFieldSize) {
        ConfigChecks checks = ConfigChecks.of("upload-service")
                .notNegative("upload.verified-token-ttl", config.verifiedTokenTtl())
                .positive("upload.body-deadline", config.bodyDeadline())
                .notNegative("upload.hook-service.shutdown-grace", config.hookService().shutdownGrace())
                .positive("upload.outbox.stuck-after", config.outbox().stuckAfter())
                .positive("upload.outbox.check-interval", config.outbox().checkInterval())
                .positive("upload.hook-service.poll-interval", config.hookService().pollInterval())
                .positive("upload.outbox.vacuum-interval", config.outbox().vacuumInterval())
                .positive("upload.retention.interval", config.retention().interval())
                .positive("upload.erasure.check-interval", config.erasure().checkInterval())
                .positive("upload.erasure.retry-after", config.erasure().retryAfter());
        Duration secondPass = config.erasure().secondPassAfter();
        checks.require(secondPass.compareTo(OutboxRepository.LEASE.multipliedBy(2)) >= 0,
                "upload.erasure.second-pass-after (" + secondPass + ") must be at least two outbox leases ("
                        + OutboxRepository.LEASE.multipliedBy(2) + "): an erased user's event already on its way to"
                        + " hook-service can arrive until then, and the second pass is what removes its delivery",
                "upload.erasure.second-pass-after");
        Duration period = config.retention().period();
        checks.require(period.compareTo(Duration.ofDays(1)) >= 0, "upload.retention.period (" + period + ") must be"
                + " at least P1D: messages and their files are kept and dropped a day at a time",
                "upload.retention.period");
        checks.require(config.retention().interval().compareTo(Duration.ofDays(1)) <= 0, "upload.retention.interval ("
                + config.retention().interval() + ") must be at most P1D: each run makes the next days' partitions,"
                + " and a message of a day with none could not be logged", "upload.retention.interval");
        // bases paths are appended to (the intake's /internal/v1/events, file_url's /files/...), and the JWKS's URL
        checks.httpUrl("upload.hook-service.url", config.hookService().url())
                .httpUrl("upload.public-base-url", config.publicBaseUrl())
                .httpUrl("upload.jwks-url", config.jwksUrl())
                .httpUrl("upload.management.url", config.management().url());
        checks.present("upload.management.internal-api-key", config.management().internalApiKey(),
                "management-service refuses the revocation list (401), so a revoked client's or certificate's tokens"
                        + " would keep working until they expire");
        checks.require(config.revocations().refresh().compareTo(Duration.ofSeconds(1)) >= 0
                && config.revocations().refresh().compareTo(Duration.ofMinutes(1)) <= 0,
                "upload.revocations.refresh (" + config.revocations().refresh() + ") must be from 1 s to 1 min: a"
                        + " revoked token keeps working that long",
                "upload.revocations.refresh");
        checks.present("upload.hook-service.internal-api-key", config.hookService().internalApiKey(),
                "hook-service refuses every hand-off (401), so no upload reaches a receiver");
        checks.require(config.jwtLeeway() <= 300, "upload.jwt-leeway (" + config.jwtLeeway() + ") must be at most 300"
                + " seconds: a token would be taken that long past its expiry", "upload.jwt-leeway");
        Duration refresh = config.jwksRefresh();
        checks.require(refresh.compareTo(Duration.ofSeconds(1)) >= 0,
                "upload.jwks-refresh (" + refresh + ") must be at least 1 s", "upload.jwks-refresh");
        checks.require(config.jwksMinRefresh().compareTo(Duration.ofSeconds(1)) >= 0, "upload.jwks-min-refresh ("
                + config.jwksMinRefresh() + ") must be at least 1 s: a token with an unknown key id, which anyone can"
                + " make, would otherwise cause a download of the keys each time", "upload.jwks-min-refresh");
        checks.require(config.maxRequestBytes() >= config.maxFileBytes() + FORM_ROOM, "upload.max-request-bytes ("
                + config.maxRequestBytes() + ") must be at least upload.max-file-bytes (" + config.maxFileBytes()
                + ") + " + FORM_ROOM + " bytes for the form's other fields, or a file of the largest size allowed is"
                + " refused as a body too large", "upload.max-request-bytes", "upload.max-file-bytes");
        checks.require(maxBodySize >= config.maxRequestBytes(), MAX_BODY_SIZE + " (" + maxBodySize + " bytes) must"
                + " not be smaller than upload.max-request-bytes (" + config.maxRequestBytes() + "; it is set from"
                + " that setting unless given on its own)", MAX_BODY_SIZE, "upload.max-request-bytes");
        checks.require(maxFieldSize >= 3L * config.maxMessageBody(), MAX_FIELD_SIZE + " (" + maxFieldSize + " bytes)"
                + " must hold upload.max-message-body (" + config.maxMessageBody() + " characters, up to 3 bytes each"
                + " in UTF-8: " + 3L * config.maxMessageBody() + " bytes), or a message_body within the limit is"
                + " refused as FIELD_TOO_LONG", MAX_FIELD_SIZE, "upload.max-message-body");
        checks.require(config.maxConcurrentBodiesPerAccount() <= config.maxConcurrentBodies(),
                "upload.max-concurrent-bodies-per-account (" + config.maxConcurrentBodiesPerAccount() + ") must not be"
                        + " more than upload.max-concurrent-bodies (" + config.maxConcurrentBodies() + ")",
                "upload.max-concurrent-bodies-per-account", "upload.max-concurrent-bodies");
        checks.require(config.outbox().checkInterval().compareTo(config.outbox().stuckAfter()) <= 0,
                "upload.outbox.check-interval (" + config.outbox().checkInterval() + ") must not be longer than"
                        + " upload.outbox.stuck-after (" + config.outbox().stuckAfter() + "): a stuck outbox would be"
                        + " noticed only that much later",
                "upload.outbox.check-interval", "upload.outbox.stuck-after");
        if (config.storage().kind().trim().equalsIgnoreCase("s3")) {
            checks.positive("upload.storage.s3.connect-timeout", config.storage().s3().connectTimeout())
                    .positive("upload.storage.s3.request-timeout", config.storage().s3().requestTimeout());
        }
        return checks;
    }
}
