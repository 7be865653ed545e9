package com.convplatform.upload.handoff;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.convplatform.testsupport.ManagementInterface;
import com.convplatform.upload.PlatformStubsResource;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * The hand-off's part of a graceful shutdown, through the method the shutdown event calls: every outbox event this
 * replica holds (written by its uploads, due only after {@link OutboxRepository#LEASE}) is handed back in one UPDATE, free
 * at once for the other replicas' polls; another replica's events are left alone; and no claim is made afterwards.
 * A profile of its own: the drained sender stays stopped for the rest of this application's life.
 */
@QuarkusTest
@QuarkusTestResource(PlatformStubsResource.class)
@TestProfile(OutboxShutdownTest.Profile.class)
class OutboxShutdownTest {
    public static class Profile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("upload.hook-service.shutdown-grace", "PT2S");
        }
    }

    @Inject
    OutboxSender sender;
    @Inject
    OutboxRepository outbox;

    @Test
    void theEventsThisReplicaHoldsAreDueAtOnceAfterTheShutdownAndNoneIsLost() {
        List<String> mine = held(outbox.newLease(), 5);
        List<String> others = held(UUID.randomUUID() + ":1", 2);
        double before = releasedMetric();

        OutboxSender.Drained drained = sender.drain(Duration.ofSeconds(2));

        assertEquals(5, drained.released(), "exactly this replica's held events were handed back");
        Instant after = Instant.now();
        for (String id : mine) {
            OutboxRows.Row o = OutboxRows.row(id);
            assertNull(o.leaseOwner(), "a handed-back event names no lease");
            assertNull(o.leaseUntil());
            assertFalse(o.nextAttemptAt().isAfter(after), "a handed-back event is due at once, not after its lease");
        }
        for (String id : others) {
            OutboxRows.Row o = OutboxRows.row(id);
            assertNotNull(o.leaseOwner(), "another replica's lease is left alone");
            assertTrue(o.leaseUntil().isAfter(after.plusSeconds(30)), "and so is its end");
        }
        assertEquals(before + 5, releasedMetric(), 0.0, "upload_handoff_released_on_shutdown_total counts them");
        assertEquals(drained, sender.drain(Duration.ofSeconds(2)), "a second call changes nothing");

        // Another replica's poll (a claim, as any sender makes it) takes them at once: nothing is lost.
        Set<String> taken = new java.util.HashSet<>();
        for (List<Claimed> batch = sender.claim(); !batch.isEmpty(); batch = sender.claim()) {
            batch.forEach(c -> taken.add(c.id()));
        }
        assertTrue(taken.containsAll(mine), "every handed-back event is claimable now: " + taken);
        assertTrue(taken.stream().noneMatch(others::contains), "the other replica's are not");

        // This replica claims nothing any more: a due event stays in the outbox, unsent, through its polls (run here,
        // as the scheduler runs them, rather than waited for).
        String due = dueEvent();
        for (int poll = 0; poll < 3; poll++) {
            sender.send();
        }
        OutboxRows.Row o = OutboxRows.row(due);
        assertNotNull(o, "the due event is still in the outbox");
        assertNull(o.leaseOwner(), "no poll of this replica claimed it");
        assertEquals(0, o.attempts(), "and none sent it");
    }

    private static double releasedMetric() {
        String metrics = given().get(ManagementInterface.url("/q/metrics")).then().statusCode(200).extract().asString();
        return metrics.lines().filter(l -> l.startsWith("upload_handoff_released_on_shutdown_total"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    /** Events as an upload writes them: due at once, under the lease {@code owner} until the lease's end. */
    List<String> held(String owner, int n) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Instant now = Instant.now();
            ids.add(OutboxRows.insert(OutboxRows.message("shutdown test", now), now, null, null, now, owner,
                    now.plus(OutboxRepository.LEASE), 0, null));
        }
        return ids;
    }

    String dueEvent() {
        return OutboxRows.due("shutdown test", null, null);
    }
}
