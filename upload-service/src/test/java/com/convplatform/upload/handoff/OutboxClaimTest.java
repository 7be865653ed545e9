package com.convplatform.upload.handoff;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import com.convplatform.load.upload.PlatformStubs;
import com.convplatform.upload.PlatformStubsResource;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The outbox claims that keep two replicas' senders from posting the same event at once: senders claiming
 * concurrently never get the same event, and a claimed event is due again only when its lease runs out.
 */
@QuarkusTest
@QuarkusTestResource(PlatformStubsResource.class)
class OutboxClaimTest {
    @Inject
    OutboxSender sender;
    @Inject
    OutboxRepository outbox;

    @AfterEach
    void intakeUp() {
        PlatformStubs.intakeDown = false;
    }

    List<String> dueEvents(int n) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(OutboxRows.due("claim test", "{}", null));
        }
        return ids;
    }

    @Test
    void concurrentSendersNeverClaimTheSameEventAndAClaimHoldsForTheLease() throws Exception {
        PlatformStubs.intakeDown = true; // what the scheduled sender claims fails and backs off; it never marks sent
        List<String> created = dueEvents(200);
        int senders = 4;
        ExecutorService pool = Executors.newFixedThreadPool(senders);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<List<Claimed>>> claims = new ArrayList<>();
        for (int s = 0; s < senders; s++) {
            Callable<List<Claimed>> claimAll = () -> {
                go.await();
                List<Claimed> mine = new ArrayList<>();
                for (List<Claimed> batch = sender.claim(); !batch.isEmpty(); batch = sender.claim()) {
                    mine.addAll(batch);
                }
                return mine;
            };
            claims.add(pool.submit(claimAll));
        }
        Instant before = Instant.now();
        go.countDown();
        Set<String> seen = new HashSet<>();
        int total = 0;
        for (Future<List<Claimed>> f : claims) {
            for (Claimed claimed : f.get()) {
                assertTrue(seen.add(claimed.id()), "claimed twice: " + claimed.id());
                OutboxRows.Row o = OutboxRows.row(claimed.id());
                assertNotNull(o.leaseOwner(), "a claimed row names its lease's owner");
                assertEquals(claimed.leaseOwner(), o.leaseOwner());
                assertFalse(o.leaseUntil().isBefore(before.plus(OutboxRepository.LEASE).minusSeconds(1)),
                        "a claimed event is not free again before the lease runs out");
                total++;
            }
        }
        pool.shutdown();
        assertTrue(total > 0 && seen.stream().anyMatch(created::contains), "the senders claimed the events");
        assertTrue(sender.claim().stream().noneMatch(o -> created.contains(o.id())),
                "nothing claimed is claimable again during its lease");
    }

    @Test
    void aDrainedBacklogIsSentInBatchesAndLeavesTheOutbox() throws Exception {
        List<String> created = dueEvents(3 * OutboxSender.BATCH + 5);
        await("every event of the backlog accepted by the intake").atMost(Duration.ofSeconds(15))
                .until(() -> unsent(created) == 0);
        assertEquals(0, rows(created), "accepted events are removed from the outbox");
    }

    @Test
    void anUploadIsHandedOnStraightAfterItsCommitAndThenLeavesTheOutbox() {
        given().header("Authorization", "Bearer test-operator-key").contentType("application/json")
                .body("{\"auth_id\":\"user42\",\"business_id\":\"1001\"}").post("/admin/v1/users");
        byte[] png = new byte[1000];
        System.arraycopy(new byte[]{(byte) 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A}, 0, png, 0, 8);
        long id = ((Number) given().header("Authorization", "Bearer " + PlatformStubs.token())
                .header("client-id", "client-1").multiPart("auth_id", "user42").multiPart("business_id", "1001")
                .multiPart("message_type", "1").multiPart("file", "direct.png", png, "image/png")
                .post("/v1.0/log_file_from_user/").then().statusCode(200).extract().path("message_id")).longValue();
        // The row is written claimed by this process, due only when the lease has passed (60 s): no poll can send it
        // within these 30 s, only the hand-off straight after the commit.
        await().atMost(Duration.ofSeconds(30)).until(
                () -> PlatformStubs.EVENTS.stream().anyMatch(e -> e.contains("\"message_id\":" + id + ",")));
        await().atMost(Duration.ofSeconds(30)).until(() -> outboxRows(id) == 0);
    }

    @Test
    void anEventItsWriterHoldsIsNotTakenByAPollDuringItsLease() {
        PlatformStubs.intakeDown = true;
        String id = heldEvent();
        assertTrue(sender.claim().stream().noneMatch(o -> o.id().equals(id)),
                "an event written under this process's lease is not claimed before its lease runs out");
        assertEquals(1, rows(List.of(id)), "it stays in the outbox");
    }

    @Test
    void anEventWrittenWithoutItsRequestIdInThePayloadGetsItAdded() {
        String marker = UUID.randomUUID().toString();
        dueEvent("{\"account_id\":\"account-1\",\"user_id\":\"" + marker + "\"}", "legacy-req-7");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> PlatformStubs.EVENTS.stream().anyMatch(e -> e.contains(marker)));
        String event = PlatformStubs.EVENTS.stream().filter(e -> e.contains(marker)).findFirst().orElseThrow();
        assertEquals("legacy-req-7", PlatformStubs.EVENT_REQUEST_IDS.get(event));
    }

    /** An event as an upload writes it: due at once, under a lease of this process until the lease's end. */
    String heldEvent() {
        Instant now = Instant.now();
        return OutboxRows.insert(OutboxRows.message("claim test", now), now, "{}", null, now, outbox.newLease(),
                now.plus(OutboxRepository.LEASE), 0, null);
    }

    void dueEvent(String payload, String requestId) {
        OutboxRows.due("claim test", payload, requestId);
    }

    long outboxRows(long messageId) {
        return OutboxRows.ofMessage(messageId);
    }

    long rows(List<String> ids) {
        return OutboxRows.count(ids);
    }

    long unsent(List<String> ids) {
        return OutboxRows.count(ids);
    }
}
