package com.convplatform.management.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

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
        String output = result.getOutput() + result.getErrorOutput();
        assertEquals(1, result.exitCode());
        assertTrue(output.contains("management-service cannot work with this configuration (3 problems)"), output);
        assertTrue(output.contains("management.rate-limit.window (PT0S) must be at least 1 s"), output);
        assertTrue(output.contains("management.cert-fetch.connect-timeout (PT10S) must not be longer than"
                + " management.cert-fetch.total-timeout (PT5S)"), output);
        assertTrue(
                output.contains("management.jwt.key-file: /nonexistent/jwt-key.pem is not a readable EC P-256 private"
                        + " key in PEM (Cannot read /nonexistent/jwt-key.pem)"),
                output);
    }
}
