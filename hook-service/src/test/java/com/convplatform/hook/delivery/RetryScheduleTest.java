package com.convplatform.hook.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import com.convplatform.hook.delivery.DeliveryStore.Claimed;
import com.convplatform.hook.delivery.DeliveryStore.Outcome;

/** The schedule alone: an attempt's status from its step since the last operator's retry, and the wait. */
class RetryScheduleTest {
    private static final RetrySchedule SCHEDULE = new RetrySchedule(
            List.of(Duration.ofSeconds(10), Duration.ofMinutes(1)));

    private static Claimed attempt(int attempt, int scheduleStart) {
        return new Claimed("d", "e", "a", 1, "{}", attempt, scheduleStart, Instant.EPOCH, "o", Instant.EPOCH, null,
                null);
    }

    @Test
    void statusFollowsTheScheduleFromTheLastOperatorRetry() {
        Outcome failed = Outcome.endpointFailed("x");
        assertEquals(DeliveryStore.DELIVERED, SCHEDULE.status(attempt(3, 0), Outcome.answered(204, null)));
        assertEquals(DeliveryStore.PENDING, SCHEDULE.status(attempt(2, 0), failed));
        assertEquals(DeliveryStore.DEAD, SCHEDULE.status(attempt(3, 0), failed));
        assertEquals(DeliveryStore.PENDING, SCHEDULE.status(attempt(5, 3), failed)); // step 2 after a retry
        assertEquals(DeliveryStore.DEAD, SCHEDULE.status(attempt(1, 0), Outcome.permanent("x")));
    }

    @Test
    void waitIsTheStepWithJitterOrALongerRetryAfterUpToADay() {
        for (int i = 0; i < 100; i++) {
            long ms = SCHEDULE.wait(attempt(2, 0), Outcome.answered(503, null)).toMillis();
            assertTrue(ms >= 48_000 && ms <= 72_000, ms + " ms");
        }
        assertEquals(Duration.ofHours(2), SCHEDULE.wait(attempt(1, 0), Outcome.answered(429, Duration.ofHours(2))));
        assertEquals(Duration.ofHours(24), SCHEDULE.wait(attempt(1, 0), Outcome.answered(429, Duration.ofDays(3))));
        long ms = SCHEDULE.wait(attempt(1, 0), Outcome.answered(429, Duration.ofSeconds(1))).toMillis();
        assertTrue(ms >= 8_000 && ms <= 12_000, ms + " ms");
    }
}
