package com.convplatform.hook.delivery;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.convplatform.crypto.testing.JsonExchanges;
import com.convplatform.testsupport.LogCapture;
import com.convplatform.testsupport.ManagementInterface;
import com.convplatform.testsupport.StubServer;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;

/**
 * A stuck queue made visible: one attempt at a time to the endpoint (per-endpoint 1), a receiver slower than the read
 * time-out (2 s), and a lease that leaves a delivery 1 s to wait for its turn. Every delivery that waited longer is
 * handed back unattempted, claimed again, handed back again: {@code hook_deliveries_unattempted_total} counts each
 * time, and one warning (at most one a minute) names the settings and the likely cause.
 */
@QuarkusTest
@QuarkusTestResource(value = UnattemptedDeliveriesTest.SlowReceiver.class, restrictToAnnotatedClass = true)
@TestProfile(UnattemptedDeliveriesTest.Profile.class)
class UnattemptedDeliveriesTest {
    private static final String ACCOUNT = "unattempted-account";
    private static final int EVENTS = 5;

    public static class Profile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            // an attempt may take 2 x 1 s + 2 s, plus the 5 s margin: a 10 s lease leaves 1 s to wait for a turn
            return Map.of("hook.delivery.per-endpoint", "1", "hook.delivery.connect-timeout", "PT1S",
                    "hook.delivery.read-timeout", "PT2S", "hook.delivery.lease", "PT10S");
        }
    }

    /** management-service's account lookup, and a receiver that answers after 4 s: each attempt times out at 2 s. */
    public static class SlowReceiver implements QuarkusTestResourceLifecycleManager {
        private StubServer server;

        @Override
        public Map<String, String> start() {
            server = StubServer.http();
            server.route("/internal/v1/accounts/", ex -> JsonExchanges.respond(ex, 200, "{\"account_id\":\"" + ACCOUNT
                    + "\",\"webhook_url\":\"" + server.url() + "/hooks/slow\"}"));
            server.route("/hooks/", ex -> {
                try (InputStream in = ex.getRequestBody()) {
                    in.readAllBytes();
                    Thread.sleep(4_000); // plays a slow receiver: the attempt ends with the read time-out
                    JsonExchanges.respond(ex, 200, "{}");
                } catch (InterruptedException | IOException e) {
                    ex.close();
                }
            });
            return Map.of("hook.management.url", server.url(), "hook.management.internal-api-key", "mgmt-key");
        }

        @Override
        public void stop() {
            server.close();
        }

    }

    private LogCapture log;

    @BeforeEach
    void listen() {
        log = LogCapture.of(DeliveryWorker.class.getName(), Level.WARNING);
    }

    @AfterEach
    void stopListening() {
        log.close();
    }

    @Test
    void claimsHandedBackWithoutAnAttemptAreCountedAndWarnedAboutOnce() {
        double before = metric("hook_deliveries_unattempted_total");
        for (int i = 1; i <= EVENTS; i++) {
            given().header("Authorization", "Bearer test-internal-key").contentType(ContentType.JSON)
                    .body(Map.of("account_id", ACCOUNT, "user_id", "u1", "conversation_number", 1, "message_body",
                            "{\"text\":\"m\",\"type\":\"TEXT\"}", "message_id", i, "sender", "user", "timestamp",
                            Instant.now().toString(), "metadata", Map.of()))
                    .post("/internal/v1/events").then().statusCode(202);
        }
        // At most one is sent in each round (it takes 2 s); the others wait past their 1 s and go back unattempted.
        await().atMost(Duration.ofSeconds(60))
                .until(() -> metric("hook_deliveries_unattempted_total") - before >= EVENTS - 1);
        List<String> warnings = log.messages();
        List<String> stuck = warnings.stream().filter(w -> w.contains("handed back without an attempt")).toList();
        assertEquals(1, stuck.size(), "one warning a minute at most: " + warnings);
        String warning = stuck.get(0);
        assertTrue(warning.contains("hook.delivery.per-endpoint 1") && warning.contains("hook.delivery.lease PT10S")
                && warning.contains("(PT4S) plus 5 s") && warning.contains("Likely cause: a slow receiver"), warning);
    }

    static double metric(String name) {
        String metrics = given().get(ManagementInterface.url("/q/metrics")).then().statusCode(200).extract().asString();
        return metrics.lines().filter(l -> l.startsWith(name + " ") || l.startsWith(name + "{"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }
}
