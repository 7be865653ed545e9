package com.convplatform.upload.config;

import java.util.Map;

import org.junit.jupiter.api.Test;

import com.convplatform.testsupport.ConfigurationRefusal;

import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.junit.main.Launch;
import io.quarkus.test.junit.main.LaunchResult;
import io.quarkus.test.junit.main.QuarkusMainTest;

/**
 * The application itself, started with settings that cannot work together: it does not start (exit status 1), and its
 * output names each broken setting with its value. Each relation on its own: UploadConfigChecksTest.
 */
@QuarkusMainTest
@TestProfile(BadConfigurationTest.Broken.class)
class BadConfigurationTest {
    public static class Broken implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            // quarkus.http.limits.max-body-size follows upload.max-request-bytes (application.properties)
            return Map.of("upload.max-request-bytes", "10485760", "upload.outbox.check-interval", "PT10M");
        }
    }

    @Test
    @Launch(value = {}, exitCode = 1)
    void theServiceDoesNotStartAndSaysWhichSettingsToMend(LaunchResult result) {
        ConfigurationRefusal.assertRefused(result, "upload-service",
                "upload.max-request-bytes (10485760) must be at least upload.max-file-bytes"
                        + " (10485760) + 65536 bytes",
                "upload.outbox.check-interval (PT10M) must not be longer than upload.outbox.stuck-after (PT5M)");
    }
}
