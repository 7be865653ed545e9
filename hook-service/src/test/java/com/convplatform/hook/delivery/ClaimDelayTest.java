package com.convplatform.hook.delivery;

import static com.convplatform.hook.delivery.HookDeliveryTest.account;
import static com.convplatform.hook.delivery.HookDeliveryTest.awaitDelivered;
import static com.convplatform.hook.delivery.HookDeliveryTest.awaitHooks;
import static com.convplatform.hook.delivery.HookDeliveryTest.event;
import static com.convplatform.hook.delivery.HookDeliveryTest.intake;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.convplatform.hook.HookPlatformResource;
import com.convplatform.hook.HookPlatformResource.Answer;
import com.convplatform.hook.QueueRows;
import com.convplatform.hook.QueueRows.Queued;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * hook.delivery.claim-delay: events taken in one after another, each in its own intake call, while the idle
 * dispatcher waits after the first one's wake, are claimed together, in one transaction, and so sent together. Its own
 * application, with a delay long enough (3 s) that three intake calls surely fall within it, and no polling in between
 * (a poll's claim could take the first event alone). The receiver answers after 2 s (within a read time-out of 5 s),
 * so that the three deliveries are seen under their lease: one claim, one lease owner
 * ({@code <replica>:<claim number>}). One event is delivered first, so that the three intakes are those of a warm
 * application.
 */
@QuarkusTest
@TestProfile(ClaimDelayTest.LongDelay.class)
@QuarkusTestResource(HookPlatformResource.class)
class ClaimDelayTest {
    static final long DELAY_MS = 3_000;

    public static class LongDelay implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("hook.delivery.claim-delay", DELAY_MS + "ms", "hook.delivery.poll-interval", "60s",
                    "hook.delivery.read-timeout", "PT5S");
        }
    }

    @Inject
    MeterRegistry registry;

    @Test
    void eventsArrivingWhileTheDispatcherWaitsShareOneClaim() throws Exception {
        // A fresh application's first intake pays for its class loading and the test client's own start (over 2 s
        // once under CI's load, which left the three intakes longer than the delay): one event delivered first, so
        // that the three below measure intake, and the dispatcher is idle again when they come.
        String warmUp = account();
        intake(event(warmUp, 1), 202);
        awaitDelivered(warmUp, 1);
        String account = account();
        HookPlatformResource.SCRIPT.put(account, new ConcurrentLinkedQueue<>(
                List.of(new Answer(200, 2_000, null), new Answer(200, 2_000, null), new Answer(200, 2_000, null))));
        DistributionSummary claims = registry.get("hook.deliveries.claimed").summary();
        long claimsBefore = claims.count();
        double claimedBefore = claims.totalAmount();
        long first = System.nanoTime();
        for (int i = 1; i <= 3; i++) {
            intake(event(account, i), 202);
        }
        long taken = (System.nanoTime() - first) / 1_000_000;
        assertTrue(taken < DELAY_MS, "the three intakes took " + taken + " ms, longer than the delay: no test");
        await().atMost(Duration.ofSeconds(15)).until(() -> leaseOwners(account).size() == 3);
        long claimed = (System.nanoTime() - first) / 1_000_000;
        assertTrue(claimed >= DELAY_MS, "claimed after " + claimed + " ms, before the claim delay ran out");
        assertEquals(1, Set.copyOf(leaseOwners(account)).size(), "one claim took the three: " + leaseOwners(account));
        awaitHooks(account, 3);
        awaitDelivered(account, 3);
        assertTrue(claims.count() > claimsBefore, "hook.deliveries.claimed counts the claim");
        assertTrue(claims.totalAmount() - claimedBefore >= 3, "hook.deliveries.claimed counts its deliveries");
    }

    /** The lease owners of the account's deliveries under a lease now. */
    private static List<String> leaseOwners(String account) {
        return QueueRows.ofAccount(account).stream().map(Queued::leaseOwner).filter(Objects::nonNull).toList();
    }
}
