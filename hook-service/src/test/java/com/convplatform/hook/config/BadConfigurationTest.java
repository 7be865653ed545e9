package com.convplatform.hook.config;

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
 * output names each broken setting with its value. Each relation on its own: HookConfigChecksTest.
 */
@QuarkusMainTest
@TestProfile(BadConfigurationTest.Broken.class)
class BadConfigurationTest {
    public static class Broken implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("hook.delivery.lease", "10s", "hook.delivery.retry-schedule", "PT5M,PT5S");
        }
    }

    @Test
    @Launch(value = {}, exitCode = 1)
    void theServiceDoesNotStartAndSaysWhichSettingsToMend(LaunchResult result) {
        String output = result.getOutput() + result.getErrorOutput();
        assertEquals(1, result.exitCode());
        assertTrue(output.contains("hook-service cannot work with this configuration (2 problems)"), output);
        assertTrue(output.contains("hook.delivery.lease (PT10S) must be longer than PT12S"), output); // test profile: read-timeout 1 s
        assertTrue(output.contains("hook.delivery.retry-schedule ([PT5M, PT5S]): wait 2 (PT5S) is shorter than wait 1"),
                output);
    }
}
