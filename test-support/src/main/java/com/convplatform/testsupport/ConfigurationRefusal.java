package com.convplatform.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.main.LaunchResult;

/** How a service refuses to start with settings that cannot work together (service-support's ConfigChecks). */
public final class ConfigurationRefusal {
    private ConfigurationRefusal() {
    }

    /** The service exited with status 1, and its output counts the problems and names each one. */
    public static void assertRefused(LaunchResult result, String service, String... problems) {
        String output = result.getOutput() + result.getErrorOutput();
        assertEquals(1, result.exitCode());
        assertTrue(output.contains(service + " cannot work with this configuration (" + problems.length
                + " problems)"), output);
        for (String problem : problems) {
            assertTrue(output.contains(problem), output);
        }
    }
}
