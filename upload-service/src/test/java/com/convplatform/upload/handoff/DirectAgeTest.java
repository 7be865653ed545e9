package com.convplatform.upload.handoff;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

/**
 * The hand-off thread posts from memory only events young enough that the post (three tries of 12 s, the intake
 * client's time-out and retries) ends within the event's lease; older ones are left to a poll, which reads the outbox
 * again (an erased event's row is gone by then).
 */
class DirectAgeTest {
    static Claimed storedAt(Instant at) {
        return new Claimed("0193a5b2-c4d6-78f0-a1b2-c3d4e5f60718", null, null, at, 1, "replica:1");
    }

    @Test
    void anEventThatWaitedInMemoryPastItsTimeIsLeftToAPoll() {
        Instant now = Instant.parse("2026-12-01T12:00:00Z");
        assertFalse(OutboxSender.tooOld(now).test(storedAt(now.minus(OutboxSender.DIRECT_MAX_AGE))));
        assertTrue(OutboxSender.tooOld(now).test(storedAt(now.minus(OutboxSender.DIRECT_MAX_AGE).minusMillis(1))));
        Duration longestPost = Duration.ofSeconds(3 * 12).plusMillis(2 * 250);
        assertTrue(OutboxSender.DIRECT_MAX_AGE.plus(longestPost).compareTo(OutboxRepository.LEASE) < 0,
                "a post begun from memory ends within the lease");
    }
}
