package com.convplatform.upload.config;

import java.time.Duration;
import java.util.Optional;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.PositiveOrZero;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * All settings of upload-service, prefix {@code upload}. Ranges of single values are checked by the constraints here,
 * relations between settings by {@link UploadConfigChecks}.
 */
@ConfigMapping(prefix = "upload")
public interface UploadConfig {

    /** Directory for the embedded database and, under incoming/, the file parts while they arrive. */
    @WithDefault("./data/upload")
    String dataDir();

    /** Base URL under which stored files are served ({@code file_url} = this + /files/{id}/{name}). */
    @WithDefault("http://localhost:8083")
    String publicBaseUrl();

    /** Where management-service publishes its token keys (mp.jwt.verify.publickey.location). */
    @WithDefault("http://localhost:8081/platform/management/jwks.json")
    String jwksUrl();

    /**
     * How often the JWKS is downloaded in the background, off every request's path. A key removed from the JWKS stops
     * being accepted within this plus {@code verified-token-ttl} (which is never longer than this).
     */
    @WithDefault("PT30S")
    Duration jwksRefresh();

    /**
     * Least time between two JWKS downloads made for tokens whose key id is unknown (a rotation reaches this replica
     * before the next background download); tokens with made-up key ids cannot make it download more often.
     */
    @WithDefault("PT10S")
    Duration jwksMinRefresh();

    /** Expected token issuer (management.jwt.issuer; mp.jwt.verify.issuer). */
    @WithDefault("platform-management")
    String jwtIssuer();

    /** Expected token audience (management.jwt.audience; mp.jwt.verify.audiences). */
    @WithDefault("platform-api")
    String jwtAudience();

    /** Clock skew allowed on exp and iat, in seconds (mp.jwt.verify.clock.skew). */
    @WithDefault("30")
    @PositiveOrZero
    int jwtLeeway();

    /** How long a verified token is remembered at most (never past its expiry or the JWKS refresh interval). */
    @WithDefault("PT1M")
    Duration verifiedTokenTtl();

    /** How many verified tokens are remembered at most. */
    @WithDefault("4096")
    @PositiveOrZero
    int verifiedTokenMax();

    /** Largest file accepted, in bytes: 10 MiB (10,485,760 bytes), the spec's "10 MB" read as the larger unit. */
    @WithDefault("10485760")
    @Positive
    long maxFileBytes();

    /** Largest request body, in bytes (11 MiB: room for the other fields); quarkus.http.limits.max-body-size. */
    @WithDefault("11534336")
    long maxRequestBytes();

    /** Longest an upload's body may take to arrive in full, however it trickles in (then 408 BODY_TIMEOUT). */
    @WithDefault("PT2M")
    Duration bodyDeadline();

    /** Most upload bodies read at once; one more is refused before it is read (503 TOO_MANY_UPLOADS). */
    @WithDefault("256")
    @Positive
    int maxConcurrentBodies();

    /**
     * Most upload bodies read at once for one account; one more from that account is refused before it is read (503
     * TOO_MANY_UPLOADS), so one tenant's slow uploads cannot take the slots of the others. At most
     * max-concurrent-bodies.
     */
    @WithDefault("32")
    @Positive
    int maxConcurrentBodiesPerAccount();

    /** Longest message_body accepted, in characters. */
    @WithDefault("4096")
    @Positive
    @Max(value = 4096, message = "must be at most 4096 (the column message.message_body holds 4096 characters)")
    int maxMessageBody();

    Storage storage();

    Admin admin();

    HookService hookService();

    Outbox outbox();

    interface Storage {
        /** Directory the local file store writes to. */
        @WithDefault("./data/upload/files")
        String dir();

        /** Which file store: {@code local} (the directory above) or {@code s3} (an S3-compatible bucket). */
        @WithDefault("local")
        String kind();

        /** The S3-compatible store, used when kind is {@code s3}. */
        S3 s3();
    }

    interface S3 {
        /** Scheme, host and port, no path: https://s3.eu-west-1.amazonaws.com, http://minio:9000. */
        Optional<String> endpoint();

        /** The bucket (addressed path-style: endpoint/bucket/key). */
        Optional<String> bucket();

        /** The region the signature is scoped to (MinIO and most others accept us-east-1). */
        @WithDefault("us-east-1")
        String region();

        /** Access key id (env UPLOAD_STORAGE_S3_ACCESS_KEY). */
        Optional<String> accessKey();

        /** Secret access key (env UPLOAD_STORAGE_S3_SECRET_KEY). */
        Optional<String> secretKey();

        /** Prepended to each file id to form the object key; "uploads" and "uploads/" both give uploads/{id}. */
        Optional<String> prefix();

        /** Time to open a connection to the endpoint. */
        @WithDefault("PT5S")
        Duration connectTimeout();

        /** Time for a whole PUT (a file of up to 10 MiB), or until the answer's headers of a GET or DELETE. */
        @WithDefault("PT60S")
        Duration requestTimeout();
    }

    interface Admin {
        /** Bearer key of the operator API (env UPLOAD_ADMIN_API_KEY). Unset: every operator call is refused. */
        Optional<String> apiKey();
    }

    interface Outbox {
        /**
         * The outbox counts as stuck once its oldest event has waited this long: a warning, at most one a minute while
         * it lasts ({@code upload_outbox_oldest_age_seconds} shows the wait at any time).
         */
        @WithDefault("PT5M")
        Duration stuckAfter();

        /** How often the oldest event's wait is compared with {@code stuck-after}. */
        @WithDefault("PT10S")
        Duration checkInterval();
    }

    interface HookService {
        /** Base URL of hook-service. */
        @WithDefault("http://localhost:8082")
        String url();

        /** hook-service's internal key. */
        Optional<String> internalApiKey();

        /** How often the outbox is sent. */
        @WithDefault("1s")
        String pollInterval();

        /**
         * On shutdown (SIGTERM), how long the batch being posted to hook-service may take to end; then every outbox
         * event this replica holds is handed back, due at once for the other replicas. With {@code
         * quarkus.shutdown.timeout} it must fit in the pod's {@code terminationGracePeriodSeconds} (README, Shutdown).
         */
        @WithDefault("PT10S")
        Duration shutdownGrace();
    }
}
