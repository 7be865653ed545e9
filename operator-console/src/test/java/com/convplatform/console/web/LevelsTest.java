package com.convplatform.console.web;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

/** The colours of the overview's outbox and JWT key tiles, at the edges of their thresholds. */
class LevelsTest {
    static final Instant NOW = Instant.parse("2026-11-22T12:00:00Z");

    @Test
    void theJwtKeyIsWarnWithinFourteenDaysOfItsRotateByDateAndBadFromIt() {
        assertEquals(Levels.OK, Levels.rotation(NOW.plus(Duration.ofDays(30)), NOW));
        assertEquals(Levels.OK, Levels.rotation(NOW.plus(Duration.ofDays(14)), NOW));
        assertEquals(Levels.WARN, Levels.rotation(NOW.plus(Duration.ofDays(14)).minusSeconds(1), NOW));
        assertEquals(Levels.WARN, Levels.rotation(NOW.plusSeconds(1), NOW));
        assertEquals(Levels.BAD, Levels.rotation(NOW, NOW));
        assertEquals(Levels.BAD, Levels.rotation(NOW.minus(Duration.ofDays(3)), NOW));
        assertEquals(Levels.WARN, Levels.rotation(null, NOW));
    }

    @Test
    void theOutboxIsWarnOnceItsOldestEventWaitedLongerThanStuckAfter() {
        assertEquals(Levels.OK, Levels.outbox(0, 300));
        assertEquals(Levels.OK, Levels.outbox(300, 300));
        assertEquals(Levels.WARN, Levels.outbox(301, 300));
    }

    @Test
    void theOldestUndeliveredIsWarnAfterAMinuteAndBadAfterAnHour() {
        assertEquals(Levels.OK, Levels.waiting(null, NOW));
        assertEquals(Levels.OK, Levels.waiting(NOW.minusSeconds(60), NOW));
        assertEquals(Levels.WARN, Levels.waiting(NOW.minusSeconds(66), NOW));
        assertEquals(Levels.WARN, Levels.waiting(NOW.minus(Duration.ofHours(1)), NOW));
        assertEquals(Levels.BAD, Levels.waiting(NOW.minus(Duration.ofHours(1)).minusSeconds(1), NOW));
    }

    @Test
    void anEndpointIsBadWhenDisabledAndWarnWhenFailing() {
        assertEquals(Levels.OK, Levels.endpoint(true, 0));
        assertEquals(Levels.WARN, Levels.endpoint(true, 3));
        assertEquals(Levels.BAD, Levels.endpoint(false, 0));
        assertEquals(Levels.BAD, Levels.endpoint(false, 7));
    }
}
