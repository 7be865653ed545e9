package com.convplatform.support;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
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

    @Test
    void aBaseUrlMustBeAbsoluteHttpWithAHostAndNothingAfterItsPath() {
        for (String bad : List.of("hook-service:8082", "management-service", "ftp://host", "http:///path",
                "http://host/", "http://host/path/", "http://host?x=1", "http://host#f", "http://ho st")) {
            ConfigChecks checks = ConfigChecks.of("s").httpUrl("a.url", bad);
            assertEquals(1, checks.problems().size(), bad);
            assertEquals(Set.of("a.url"), checks.settings(), bad);
            assertTrue(checks.problems().get(0).startsWith("a.url (" + bad + ") "),
                    checks.problems().get(0));
        }
        assertEquals("a.url (hook-service:8082) is not an absolute http or https URL with a host (for example"
                + " http://hook-service:8082)",
                ConfigChecks.of("s").httpUrl("a.url", "hook-service:8082").problems()
                        .get(0));
        for (String good : List.of("http://hook-service:8082", "HTTPS://management.platform.example",
                "https://host:8443/base", "http://127.0.0.1:9000")) {
            assertEquals(List.of(), ConfigChecks.of("s").httpUrl("a.url", good).problems(), good);
        }
    }

    @Test
    void aKeySentToAnotherServiceMustBeSet() {
        assertEquals(List.of("a.key is not set: every call is refused"),
                ConfigChecks.of("s").present("a.key", Optional.empty(), "every call is refused").problems());
        assertEquals(1, ConfigChecks.of("s").present("a.key", Optional.of("  "), "x").problems().size());
        assertEquals(List.of(), ConfigChecks.of("s").present("a.key", Optional.of("k"), "x").problems());
    }
}
