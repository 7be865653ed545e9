package com.convplatform.hook.delivery;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.quarkus.runtime.configuration.ConfigurationException;

/**
 * A lease too short for an attempt stops the service at start, naming the setting (before this check, a 10 s lease
 * made hook-service accept every event and deliver none, silently): DeliveryWorker runs this check when it is made.
 */
class LeaseSettingTest {
    static final Duration CONNECT = Duration.ofSeconds(3);
    static final Duration READ = Duration.ofSeconds(10);

    @Test
    void aLeaseShorterThanAnAttemptAndItsMarginIsRefusedWithTheSettingsNamed() {
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> DeliveryWorker.checkLease(Duration.ofSeconds(10), CONNECT, READ));
        assertEquals(Set.of("hook.delivery.lease"), e.getConfigKeys());
        assertTrue(e.getMessage().startsWith("hook.delivery.lease (PT10S) must be longer than PT21S"), e.getMessage());
        assertTrue(e.getMessage().contains("hook.delivery.connect-timeout (PT3S")
                && e.getMessage().contains("hook.delivery.read-timeout (PT10S)"), e.getMessage());
        assertThrows(ConfigurationException.class, () -> DeliveryWorker.checkLease(Duration.ofSeconds(21), CONNECT,
                READ));
    }

    @Test
    void theDefaultsAndALeaseJustLongEnoughPass() {
        assertDoesNotThrow(() -> DeliveryWorker.checkLease(Duration.ofSeconds(60), CONNECT, READ));
        assertDoesNotThrow(() -> DeliveryWorker.checkLease(Duration.ofSeconds(22), CONNECT, READ));
    }
}
