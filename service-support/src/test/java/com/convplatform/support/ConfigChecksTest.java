package com.convplatform.support;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.quarkus.runtime.configuration.ConfigurationException;

class ConfigChecksTest {
    @Test
    void everyBrokenRelationIsListedInOneExceptionNamingItsSettings() {
        ConfigChecks checks = ConfigChecks.of("some-service").positive("a.poll", Duration.ZERO)
                .notNegative("a.grace", Duration.ofSeconds(-1)).require(false, "a.max (1) must be at least a.min (2)",
                        "a.max", "a.min");
        ConfigurationException e = assertThrows(ConfigurationException.class, checks::throwIfAny);
        assertEquals("""
                some-service cannot work with this configuration (3 problems):
                  - a.poll (PT0S) must be longer than zero
                  - a.grace (PT-1S) must not be negative (zero: none)
                  - a.max (1) must be at least a.min (2)""", e.getMessage());
        assertEquals(Set.of("a.poll", "a.grace", "a.max", "a.min"), e.getConfigKeys());
    }

    @Test
    void relationsThatHoldRecordNothing() {
        ConfigChecks checks = ConfigChecks.of("some-service").positive("a.poll", Duration.ofMillis(1))
                .notNegative("a.grace", Duration.ZERO).require(true, "never", "a.max");
        assertEquals(List.of(), checks.problems());
        assertEquals(Set.of(), checks.settings());
        assertDoesNotThrow(checks::throwIfAny);
    }
}
