package com.convplatform.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.quarkus.runtime.configuration.ConfigurationException;

/**
 * The body guard's two settings stop the start when they cannot work, naming themselves: no deadline would refuse every
 * body 408, and no body per source would refuse every request with a body 429 (0 is not "no limit" here).
 */
class BodyGuardSettingsTest {
    private static BodyGuard guard(Duration deadline, int perSource) {
        return new BodyGuard(deadline, perSource, new SimpleMeterRegistry(), new ObjectMapper(), "a-service");
    }

    @Test
    void aDeadlineOfNothingOrNoBodyPerSourceIsRefusedAtStart() {
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> guard(Duration.ZERO, 0));
        assertEquals("a-service cannot work with this configuration (2 problems):\n"
                + "  - platform.http.body-deadline (PT0S) must be longer than zero\n"
                + "  - platform.http.max-bodies-per-source (0) must be at least 1: with fewer every request with a body"
                + " would be refused 429 TOO_MANY_BODIES (it has no 'no limit' value)", e.getMessage());
        guard(Duration.ofSeconds(10), 1);
    }
}
