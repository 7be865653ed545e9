package com.convplatform.management.config;

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
 * output names each broken setting with its value. Each relation on its own: ManagementConfigChecksTest.
 */
@QuarkusMainTest
@TestProfile(BadConfigurationTest.Broken.class)
class BadConfigurationTest {
    public static class Broken implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("management.cert-fetch.connect-timeout", "PT10S", "management.rate-limit.window", "0s",
                    "management.jwt.key-file", "/nonexistent/jwt-key.pem");
        }
    }

    @Test
    @Launch(value = {}, exitCode = 1)
    void theServiceDoesNotStartAndSaysWhichSettingsToMend(LaunchResult result) {
        ConfigurationRefusal.assertRefused(result, "management-service",
                "management.rate-limit.window (PT0S) must be at least 1 s",
                "management.cert-fetch.connect-timeout (PT10S) must not be longer than"
                        + " management.cert-fetch.total-timeout (PT5S)",
                "management.jwt.key-file: /nonexistent/jwt-key.pem is not a readable EC P-256 private"
                        + " key in PEM (Cannot read /nonexistent/jwt-key.pem)");
    }
}
