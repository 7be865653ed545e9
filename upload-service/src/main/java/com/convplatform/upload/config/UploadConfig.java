package com.convplatform.upload.config;

import java.time.Duration;
import java.util.Optional;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** All settings of upload-service, prefix {@code upload}. */
@ConfigMapping(prefix = "upload")
public interface UploadConfig {

    /** Directory for the embedded database and incoming multipart parts. */
    @WithDefault("./data/upload")
    String dataDir();

    /** Base URL under which stored files are served ({@code file_url} = this + /files/{id}/{name}). */
    @WithDefault("http://localhost:8083")
    String publicBaseUrl();

    /** Where management-service publishes its token keys. */
    @WithDefault("http://localhost:8081/platform/management/jwks.json")
    String jwksUrl();

    /** Expected token issuer (management.jwt.issuer). */
    @WithDefault("platform-management")
    String jwtIssuer();

    /** Expected token audience (management.jwt.audience). */
    @WithDefault("platform-api")
    String jwtAudience();

    /** A JWKS refresh for an unknown key id happens at most this often. */
    @WithDefault("PT30S")
    Duration jwksMinRefresh();

    /** Clock skew allowed on exp and iat. */
    @WithDefault("PT30S")
    Duration jwtLeeway();

    /** Largest file accepted, in bytes (spec: 10 MB; 10 MiB here). */
    @WithDefault("10485760")
    long maxFileBytes();

    /** Longest message_body accepted, in characters. */
    @WithDefault("4096")
    int maxMessageBody();

    /** File storage. */
    Storage storage();

    /** The operator API. */
    Admin admin();

    /** Hand-off to hook-service. */
    HookService hookService();

    interface Storage {
        /** Directory the local file store writes to. */
        @WithDefault("./data/upload/files")
        String dir();
    }

    interface Admin {
        /** Bearer key of the operator API (env UPLOAD_ADMIN_API_KEY). Unset: every operator call is refused. */
        Optional<String> apiKey();
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
    }
}
