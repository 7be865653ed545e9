package com.convplatform.console.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.junit.main.Launch;
import io.quarkus.test.junit.main.LaunchResult;
import io.quarkus.test.junit.main.QuarkusMainTest;

/**
 * The console itself, started without {@code console.session-key}: it does not start (exit status 1), its output names
 * the setting and how to make one, and no key of Quarkus' making is written anywhere in it.
 */
@QuarkusMainTest
@TestProfile(NoSessionKeyTest.NoKey.class)
class NoSessionKeyTest {
    public static class NoKey implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("console.session-key", "");
        }
    }

    @Test
    @Launch(value = {}, exitCode = 1)
    void theConsoleDoesNotStartAndLogsNoKey(LaunchResult result) {
        String output = result.getOutput() + result.getErrorOutput();
        assertEquals(1, result.exitCode());
        assertTrue(output.contains("console.session-key (CONSOLE_SESSION_KEY) is not set"), output);
        assertTrue(output.contains("openssl rand -base64 32"), output);
        assertFalse(output.contains("Encryption key was not specified"), output);
        assertFalse(output.contains("temporary key"), output);
    }
}
