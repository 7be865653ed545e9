package com.convplatform.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.quarkus.runtime.configuration.ConfigurationException;

/** A commit deadline of nothing would answer every write 503 before it was tried: the start stops, naming it. */
class CommitDeadlineTest {
    @Test
    void aDeadlineOfNothingOrLessIsRefusedAtStart() {
        for (Duration bad : new Duration[]{Duration.ZERO, Duration.ofSeconds(-1)}) {
            ConfigurationException e = assertThrows(ConfigurationException.class,
                    () -> new CommitDeadline(bad, "a-service"));
            assertEquals("a-service cannot work with this configuration (1 problem):\n"
                    + "  - platform.database.commit-deadline (" + bad + ") must be longer than zero", e.getMessage());
        }
        assertEquals(Duration.ofSeconds(35), new CommitDeadline(Duration.ofSeconds(35), "a-service").get());
    }
}
