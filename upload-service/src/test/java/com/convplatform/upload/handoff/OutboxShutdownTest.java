package com.convplatform.upload.handoff;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
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
import jakarta.transaction.Transactional;

import org.junit.jupiter.api.Test;

import com.convplatform.upload.PlatformStubsResource;
import com.convplatform.upload.message.Message;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * The hand-off's part of a graceful shutdown, through the method the shutdown event calls: every outbox event this
 * replica holds (written by its uploads, due only after {@link OutboxSender#LEASE}) is handed back in one UPDATE, due
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

    @Test
    void theEventsThisReplicaHoldsAreDueAtOnceAfterTheShutdownAndNoneIsLost() {
        List<String> mine = held(sender.ownClaim(), 5);
        List<String> others = held(UUID.randomUUID().toString(), 2);
        double before = releasedMetric();

        OutboxSender.Drained drained = sender.drain(Duration.ofSeconds(2));

        assertEquals(5, drained.released(), "exactly this replica's held events were handed back");
        Instant after = Instant.now();
        for (String id : mine) {
            HookOutbox o = row(id);
            assertNull(o.claimToken, "a handed-back event names no claim");
            assertFalse(o.nextAttemptAt.isAfter(after), "a handed-back event is due at once, not after its lease");
            assertNull(o.sentAt);
        }
        for (String id : others) {
            HookOutbox o = row(id);
            assertNotNull(o.claimToken, "another replica's claim is left alone");
            assertTrue(o.nextAttemptAt.isAfter(after.plusSeconds(30)), "and so is its lease");
        }
        assertEquals(before + 5, releasedMetric(), 0.0, "upload_handoff_released_on_shutdown_total counts them");
        assertEquals(drained, sender.drain(Duration.ofSeconds(2)), "a second call changes nothing");

        // Another replica's poll (a claim, as any sender makes it) takes them at once: nothing is lost.
        Set<String> taken = new java.util.HashSet<>();
        for (List<OutboxSender.Claimed> batch = sender.claim(); !batch.isEmpty(); batch = sender.claim()) {
            batch.forEach(c -> taken.add(c.id()));
        }
        assertTrue(taken.containsAll(mine), "every handed-back event is claimable now: " + taken);
        assertTrue(taken.stream().noneMatch(others::contains), "the other replica's are not");

        // This replica claims nothing any more: a due event stays in the outbox, unsent, through several polls.
        String due = dueEvent();
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> {
            HookOutbox o = row(due);
            return o != null && o.claimToken == null && o.attempts == 0;
        });
    }

    private static double releasedMetric() {
        String metrics = given().get("/q/metrics").then().statusCode(200).extract().asString();
        return metrics.lines().filter(l -> l.startsWith("upload_handoff_released_on_shutdown_total"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    /** Events as an upload writes them: claimed by {@code claim}, due when the lease has passed. */
    @Transactional
    List<String> held(String claim, int n) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            HookOutbox o = row(OutboxRows.message("shutdown test", Instant.now()), claim,
                    Instant.now().plus(OutboxSender.LEASE));
            o.persist();
            ids.add(o.id);
        }
        return ids;
    }

    @Transactional
    String dueEvent() {
        HookOutbox o = row(OutboxRows.message("shutdown test", Instant.now()), null, Instant.now().minusSeconds(1));
        o.persist();
        return o.id;
    }

    private static HookOutbox row(Message m, String claim, Instant due) {
        HookOutbox o = OutboxRows.row(m, due);
        o.claimToken = claim;
        return o;
    }

    @Transactional
    HookOutbox row(String id) {
        return HookOutbox.findById(id);
    }
}
