package com.convplatform.upload.handoff;

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
import jakarta.transaction.Transactional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import com.convplatform.upload.PlatformStubs;
import com.convplatform.upload.message.Message;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The outbox claims that keep two replicas' senders from posting the same event at once: senders claiming
 * concurrently never get the same event, and a claimed event is due again only when its lease runs out.
 */
@QuarkusTest
@QuarkusTestResource(PlatformStubs.class)
class OutboxClaimTest {
    @Inject
    OutboxSender sender;

    @AfterEach
    void intakeUp() {
        PlatformStubs.intakeDown = false;
    }

    @Transactional
    List<String> dueEvents(int n) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Message m = new Message();
            m.accountId = "account-1";
            m.clientId = "client-1";
            m.businessId = "1001";
            m.authId = "user42";
            m.messageType = 1;
            m.messageBody = "claim test";
            m.fileId = UUID.randomUUID().toString().replace("-", "");
            m.fileName = "a.png";
            m.contentType = "image/png";
            m.sizeBytes = 1;
            m.createdAt = Instant.now();
            m.persist();
            HookOutbox o = new HookOutbox();
            o.id = UUID.randomUUID().toString();
            o.messageId = m.messageId;
            o.payload = "{}";
            o.nextAttemptAt = Instant.now().minusSeconds(1);
            o.persist();
            ids.add(o.id);
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
        List<Future<List<OutboxSender.Claimed>>> claims = new ArrayList<>();
        for (int s = 0; s < senders; s++) {
            Callable<List<OutboxSender.Claimed>> claimAll = () -> {
                go.await();
                List<OutboxSender.Claimed> mine = new ArrayList<>();
                for (List<OutboxSender.Claimed> batch = sender.claim(); !batch.isEmpty(); batch = sender.claim()) {
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
        for (Future<List<OutboxSender.Claimed>> f : claims) {
            for (OutboxSender.Claimed claimed : f.get()) {
                assertTrue(seen.add(claimed.id()), "claimed twice: " + claimed.id());
                HookOutbox o = row(claimed.id());
                assertNotNull(o.claimToken, "a claimed row names its claim");
                assertFalse(o.nextAttemptAt.isBefore(before.plus(OutboxSender.LEASE).minusSeconds(1)),
                        "a claimed event is not due again before the lease runs out");
                total++;
            }
        }
        pool.shutdown();
        assertTrue(total > 0 && seen.stream().anyMatch(created::contains), "the senders claimed the events");
        assertTrue(sender.claim().stream().noneMatch(o -> created.contains(o.id())),
                "nothing claimed is claimable again during its lease");
    }

    @Test
    void aDrainedBacklogIsMarkedSentInBatches() throws Exception {
        List<String> created = dueEvents(3 * OutboxSender.BATCH + 5);
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (System.nanoTime() < deadline && unsent(created) > 0) {
            Thread.sleep(100);
        }
        assertEquals(0, unsent(created), "every event of the backlog was accepted by the intake");
    }

    @Transactional
    HookOutbox row(String id) {
        return HookOutbox.findById(id);
    }

    @Transactional
    long unsent(List<String> ids) {
        return HookOutbox.count("id in ?1 and sentAt is null", ids);
    }
}
