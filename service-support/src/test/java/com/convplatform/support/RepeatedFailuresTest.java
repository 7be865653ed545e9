package com.convplatform.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.logging.Level;

import org.jboss.logging.Logger;
import org.junit.jupiter.api.Test;

import com.convplatform.testsupport.LogCapture;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * A task that fails on every try: each failure counted, one warning within the minute (naming the counter as
 * Prometheus shows it), one line when it works again, and the next failure warned of at once.
 */
class RepeatedFailuresTest {
    private static final String CATEGORY = "repeated.failures.test";

    @Test
    void manyFailuresAreCountedAndWarnedOnceAndTheRecoveryIsSaidOnce() {
        Counter counter = Counter.builder("example.poll.failures").register(new SimpleMeterRegistry());
        RepeatedFailures failures = new RepeatedFailures(Logger.getLogger(CATEGORY), "Polling the example", counter);
        try (LogCapture log = LogCapture.of(CATEGORY, Level.INFO)) {
            for (int i = 0; i < 5; i++) {
                failures.failed(new IllegalStateException("out of reach"), "examples wait");
            }
            assertEquals(5, counter.count());
            assertEquals(List.of("Polling the example failed (1 times since the last such warning; at most one a"
                    + " minute, example_poll_failures_total counts them all); examples wait"), log.messages());
            assertEquals("out of reach", log.records().get(0).getThrown().getMessage());

            failures.succeeded();
            failures.succeeded(); // said once
            assertEquals("Polling the example works again", log.messages().get(1));
            assertEquals(2, log.messages().size());

            failures.failed(new IllegalStateException("again"), "examples wait");
            assertEquals(3, log.messages().size(), "a new outage is warned of at once: " + log.messages());
            assertTrue(log.messages().get(2).startsWith("Polling the example failed (1 times"), log.messages().get(2));
            assertEquals(6, counter.count());
        }
    }
}
