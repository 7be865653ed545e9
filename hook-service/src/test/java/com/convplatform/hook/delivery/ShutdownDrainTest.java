package com.convplatform.hook.delivery;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.convplatform.crypto.testing.JsonExchanges;
import com.convplatform.hook.QueueRows;
import com.convplatform.testsupport.ManagementInterface;
import com.convplatform.testsupport.StubServer;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;

/**
 * Delivery's part of a graceful shutdown when the receiver outlasts {@code hook.delivery.shutdown-grace}, through the
 * method the shutdown event calls: the attempts still under way at the grace's end are cut off (no outcome recorded,
 * no attempt counted), and every lease this replica holds, theirs and those of the deliveries waiting for their
 * endpoint's turn, is handed back in one UPDATE, due at once for any replica. (GracefulShutdownIT stops the built jar
 * with SIGTERM and SIGKILL.) A profile of its own: the drained worker stays stopped for the rest of this application.
 */
@QuarkusTest
@QuarkusTestResource(value = ShutdownDrainTest.HangingReceiver.class, restrictToAnnotatedClass = true)
@TestProfile(ShutdownDrainTest.Profile.class)
class ShutdownDrainTest {
    private static final String ACCOUNT = "drain-account";
    private static final int EVENTS = 6;

    public static class Profile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            // an attempt may last 2 x 1 s + 20 s: longer than the grace; the lease outlasts it by more than 5 s
            return Map.of("hook.delivery.per-endpoint", "2", "hook.delivery.connect-timeout", "PT1S",
                    "hook.delivery.read-timeout", "PT20S", "hook.delivery.lease", "PT60S",
                    "hook.delivery.shutdown-grace", "PT1S");
        }
    }

    /** management-service's account lookup, and a receiver that answers only once the test lets it. */
    public static class HangingReceiver implements QuarkusTestResourceLifecycleManager {
        static final CountDownLatch ANSWER = new CountDownLatch(1);
        static final AtomicInteger ARRIVED = new AtomicInteger();
        private StubServer server;

        @Override
        public Map<String, String> start() {
            server = StubServer.http();
            server.route("/internal/v1/accounts/", ex -> {
                if (ex.getRequestURI().getPath().endsWith("/" + ACCOUNT)) {
                    JsonExchanges.respond(ex, 200, "{\"account_id\":\"" + ACCOUNT + "\",\"webhook_url\":\""
                            + server.url() + "/hooks/hang\"}");
                } else {
                    JsonExchanges.respond(ex, 404, "{}"); // deliveries other test classes left in the database: dead-lettered
                }
            });
            server.route("/hooks/", ex -> {
                try (InputStream in = ex.getRequestBody()) {
                    in.readAllBytes();
                    ARRIVED.incrementAndGet();
                    ANSWER.await(60, TimeUnit.SECONDS); // plays a receiver slower than the shutdown's grace
                    JsonExchanges.respond(ex, 200, "{}");
                } catch (InterruptedException | IOException e) {
                    ex.close();
                }
            });
            return Map.of("hook.management.url", server.url(), "hook.management.internal-api-key", "mgmt-key");
        }

        @Override
        public void stop() {
            ANSWER.countDown();
            server.close();
        }

    }

    @Inject
    DeliveryWorker worker;

    @Inject
    DeliveryStore store;

    List<QueueRows.Queued> rows() {
        return QueueRows.ofAccount(ACCOUNT);
    }

    long attempts(Set<String> deliveries) {
        return QueueRows.attempts(deliveries);
    }

    @Test
    void attemptsOutlastingTheGraceAreCutOffAndEveryLeaseIsHandedBack() {
        for (int i = 1; i <= EVENTS; i++) {
            given().header("Authorization", "Bearer test-internal-key").contentType(ContentType.JSON)
                    .body(Map.of("account_id", ACCOUNT, "user_id", "u1", "conversation_number", 1, "message_body",
                            "{\"text\":\"m\",\"type\":\"TEXT\"}", "message_id", i, "sender", "user", "timestamp",
                            Instant.now().toString(), "metadata", Map.of()))
                    .post("/internal/v1/events").then().statusCode(202);
        }
        // Two attempts hang at the receiver; the other four wait for the endpoint's turn; all six are leased.
        await().atMost(Duration.ofSeconds(20)).until(() -> HangingReceiver.ARRIVED.get() == 2
                && rows().stream().filter(d -> d.leaseOwner() != null).count() == EVENTS);
        double before = releasedMetric();

        long started = System.nanoTime();
        DeliveryWorker.Drained drained = worker.drain(Duration.ofSeconds(1));
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

        // (held and released may include rows other test classes left in this database, dead-lettered by now)
        assertTrue(drained.held() >= EVENTS && drained.released() >= EVENTS, "six held and handed back: " + drained);
        assertTrue(tookMs < 4_000, "the grace (1 s) bounds the stop, whatever the receiver does: " + tookMs + " ms");
        Instant after = Instant.now();
        assertEquals(EVENTS, rows().size(), "all six are still in the queue");
        for (QueueRows.Queued d : rows()) {
            assertNull(d.leaseOwner(), "handed back: no owner");
            assertNull(d.leaseUntil(), "handed back: no lease");
            assertFalse(d.nextAttemptAt().isAfter(after), "handed back: due at once, not at the lease's end");
            assertEquals(0, d.attempts(), "an attempt cut off by the shutdown is not counted");
        }
        Set<String> ids = rows().stream().map(QueueRows.Queued::id).collect(Collectors.toSet());
        assertEquals(0, attempts(ids), "no outcome was recorded for the attempts cut off");
        assertEquals(before + drained.released(), releasedMetric(), 0.0, "hook_deliveries_released_on_shutdown_total");
        assertEquals(2, HangingReceiver.ARRIVED.get(), "no attempt started after the shutdown began");

        // Any replica's next claim takes them all: nothing is lost.
        Set<String> claimed = store.claimDue(32).stream().map(DeliveryStore.Claimed::id).collect(Collectors.toSet());
        assertTrue(claimed.containsAll(ids), "every handed-back delivery is claimable now");
        HangingReceiver.ANSWER.countDown();
    }

    private static double releasedMetric() {
        String metrics = given().get(ManagementInterface.url("/q/metrics")).then().statusCode(200).extract().asString();
        return metrics.lines().filter(l -> l.startsWith("hook_deliveries_released_on_shutdown_total"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }
}
