package com.convplatform.upload.storage;

import java.io.IOException;
import java.util.Map;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/** Starts a {@link LoopbackS3} for a Quarkus test and points {@code upload.storage.s3.*} at it. */
public class LoopbackS3Resource implements QuarkusTestResourceLifecycleManager {
    public static final String BUCKET = "uploads";
    public static final String PREFIX = "upload-service/";
    public static volatile LoopbackS3 server;

    @Override
    public Map<String, String> start() {
        try {
            server = LoopbackS3.start("AKIDQUARKUSTEST", "quarkus-test-secret", "eu-north-1", BUCKET);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return Map.of("upload.storage.s3.endpoint", server.endpoint().toString(), "upload.storage.s3.bucket", BUCKET,
                "upload.storage.s3.region", "eu-north-1", "upload.storage.s3.access-key", "AKIDQUARKUSTEST",
                "upload.storage.s3.secret-key", "quarkus-test-secret", "upload.storage.s3.prefix", PREFIX);
    }

    @Override
    public void stop() {
        if (server != null) {
            server.close();
        }
    }
}
