package com.convplatform.upload.config;

import java.time.Duration;
import java.util.Optional;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.PositiveOrZero;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** upload-service's settings (README, Configuration); relations between them: {@link UploadConfigChecks}. */
@ConfigMapping(prefix = "upload")
public interface UploadConfig {
    /** Under incoming/, the file parts while they arrive (beside the local store, so a part is moved, not copied). */
    @WithDefault("./data/upload")
    String dataDir();

    /** Base of {@code file_url} (this + /files/{id}/{name}): scheme, host, port, maybe a path, no trailing slash. */
    @WithDefault("http://localhost:8083")
    String publicBaseUrl();

    /** management-service's JWKS (mp.jwt.verify.publickey.location). */
    @WithDefault("http://localhost:8081/platform/management/jwks.json")
    String jwksUrl();

    /** How often the JWKS is downloaded, in the background. */
    @WithDefault("PT30S")
    Duration jwksRefresh();

    /** Least time between two JWKS downloads caused by tokens whose key id is unknown. */
    @WithDefault("PT10S")
    Duration jwksMinRefresh();

    @WithDefault("platform-management")
    String jwtIssuer();

    @WithDefault("platform-api")
    String jwtAudience();

    /** Clock skew allowed on exp and iat, in seconds (mp.jwt.verify.clock.skew). */
    @WithDefault("30")
    @PositiveOrZero
    int jwtLeeway();

    /** How long a verified token is remembered at most (never past its expiry or jwks-refresh). */
    @WithDefault("PT1M")
    Duration verifiedTokenTtl();

    @WithDefault("4096")
    @PositiveOrZero
    int verifiedTokenMax();

    /** Largest file, in bytes: the spec's "10 MB" read as 10 MiB. */
    @WithDefault("10485760")
    @Positive
    long maxFileBytes();

    /** Largest request body, in bytes (quarkus.http.limits.max-body-size). */
    @WithDefault("11534336")
    long maxRequestBytes();

    /** Longest an upload's body may take to arrive in full (then 408 BODY_TIMEOUT). */
    @WithDefault("PT2M")
    Duration bodyDeadline();

    /** Most upload bodies read at once (then 503 TOO_MANY_UPLOADS). */
    @WithDefault("256")
    @Positive
    int maxConcurrentBodies();

    /** Most upload bodies read at once for one account, so one tenant cannot take every slot. */
    @WithDefault("32")
    @Positive
    int maxConcurrentBodiesPerAccount();

    @WithDefault("4096")
    @Positive
    @Max(value = 4096, message = "must be at most 4096 (the column message.message_body holds 4096 characters)")
    int maxMessageBody();

    Storage storage();

    Admin admin();

    HookService hookService();

    Outbox outbox();

    Retention retention();

    Erasure erasure();

    Quota quota();

    Management management();

    Revocations revocations();

    /** management-service's internal API, for its revocation list (README, Revoked tokens). */
    interface Management {
        /** Base of management-service's internal API (scheme, host, port). */
        @WithDefault("http://localhost:8081")
        String url();

        /** management-service's internal key, sent as a bearer token: required. */
        Optional<String> internalApiKey();
    }

    interface Revocations {
        /** How often the revocation list is read: a revoked token stops working within this (and one download). */
        @WithDefault("PT5S")
        Duration refresh();
    }

    /** Per-account upload quotas (README, Quotas); 0 switches one off. */
    interface Quota {
        /** Bytes an account may upload in a UTC day: the declared lengths of its accepted uploads (10 GiB). */
        @WithDefault("10737418240")
        @Min(value = 0, message = "must be 0 (no quota) or more")
        long bytesPerDay();

        /** Uploads an account may start in a minute (a calendar minute, counted on every replica together). */
        @WithDefault("300")
        @Min(value = 0, message = "must be 0 (no quota) or more")
        int uploadsPerMinute();
    }

    interface Erasure {
        /**
         * When hook-service is asked a second time to remove an erased user's deliveries, for an event that was on its
         * way to it during the first pass: at least two outbox leases (2 min).
         */
        @WithDefault("PT2M")
        Duration secondPassAfter();

        /** How often erasures with a pass due (a second one, or one that failed) are looked for. */
        @WithDefault("PT15S")
        Duration checkInterval();

        /** How long after a failed pass at hook-service it is tried again. */
        @WithDefault("PT30S")
        Duration retryAfter();
    }

    interface Retention {
        /**
         * How long messages and their stored files are kept (at least this, at most a day more); a day whose events
         * still wait for hook-service is kept until they are handed on.
         */
        @WithDefault("P30D")
        Duration period();

        /** How often retention runs (and makes the next week's partitions). */
        @WithDefault("PT1H")
        Duration interval();
    }

    interface Storage {
        @WithDefault("./data/upload/files")
        String dir();

        /** {@code local} or {@code s3}. */
        @WithDefault("local")
        String kind();

        S3 s3();
    }

    interface S3 {
        /** Scheme, host and port, no path. */
        Optional<String> endpoint();

        Optional<String> bucket();

        /** The region the signature is scoped to. */
        @WithDefault("us-east-1")
        String region();

        Optional<String> accessKey();

        Optional<String> secretKey();

        /** Prepended to each file id to form the object key. */
        Optional<String> prefix();

        @WithDefault("PT5S")
        Duration connectTimeout();

        /** Time for a whole PUT, or until a GET's or DELETE's answer headers. */
        @WithDefault("PT60S")
        Duration requestTimeout();
    }

    interface Admin {
        /** The operator API's bearer key; unset, every operator call is refused. */
        Optional<String> apiKey();
    }

    interface Outbox {
        /** Once the oldest outbox event has waited this long, a warning (at most one a minute). */
        @WithDefault("PT5M")
        Duration stuckAfter();

        /** How often the oldest event's wait is compared with stuck-after. */
        @WithDefault("PT10S")
        Duration checkInterval();

        /**
         * Whether the service vacuums the outbox table itself, every {@code vacuum-interval} (one replica at a time):
         * its rows are deleted as fast as they are inserted, and autovacuum may lag or be off.
         */
        @WithDefault("true")
        boolean vacuum();

        @WithDefault("PT1M")
        Duration vacuumInterval();
    }

    interface HookService {
        /** Base of hook-service's internal API (the URL of the REST clients hook-intake and hook-erasures). */
        @WithDefault("http://localhost:8082")
        String url();

        /** hook-service's internal key, sent as a bearer token: required (without, every hand-off is refused). */
        Optional<String> internalApiKey();

        /**
         * How often the outbox is polled (OutboxSender's {@code @Scheduled} reads the property itself): a duration, so
         * the scheduler's {@code off} or {@code disabled}, which would stop every retry, is refused at start.
         */
        @WithDefault("PT1S")
        Duration pollInterval();

        /** On shutdown, how long the batch being posted may take before held events are handed back. */
        @WithDefault("PT10S")
        Duration shutdownGrace();
    }
}
