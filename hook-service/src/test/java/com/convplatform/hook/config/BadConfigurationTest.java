package com.convplatform.hook.config;

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
        // PT12S: the test profile's read-timeout is 1 s
        ConfigurationRefusal.assertRefused(result, "hook-service",
                "hook.delivery.lease (PT10S) must be longer than PT12S",
                "hook.delivery.retry-schedule ([PT5M, PT5S]): wait 2 (PT5S) is shorter than wait 1");
    }
}
