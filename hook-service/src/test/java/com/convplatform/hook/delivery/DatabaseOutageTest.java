package com.convplatform.hook.delivery;

import static com.convplatform.hook.delivery.HookDeliveryTest.BACKGROUND;
import static com.convplatform.hook.delivery.HookDeliveryTest.INTERNAL;
import static com.convplatform.hook.delivery.HookDeliveryTest.account;
import static com.convplatform.hook.delivery.HookDeliveryTest.awaitHooks;
import static com.convplatform.hook.delivery.HookDeliveryTest.event;
import static com.convplatform.hook.delivery.HookDeliveryTest.intake;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.logging.Level;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.convplatform.hook.HookPlatformResource;
import com.convplatform.support.GroupCommit;
import com.convplatform.testsupport.LogCapture;
import com.convplatform.testsupport.ManagementInterface;
import com.convplatform.testsupport.RelayedPostgresTestResource;

import io.agroal.api.AgroalDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;

/**
 * PostgreSQL out of reach and back (test-support's relay between the service and its database, closing every
 * connection and each new one): intake answers 503 DATABASE_UNAVAILABLE with Retry-After, so the sender retries; the
 * claim loop, tried every poll interval, counts each failure and warns once (not once a poll), and a scrape shows the
 * queue's last sampled gauges; once the database is
 * back, an event is accepted and delivered with no restart, and the log says claiming works again.
 */
@QuarkusTest
@TestProfile(RelayedPostgresTestResource.Profile.class)
@QuarkusTestResource(HookPlatformResource.class)
class DatabaseOutageTest {
    @Inject
    AgroalDataSource pool;

    @Inject
    MeterRegistry metrics;

    private double claimFailures() {
        return metrics.get("hook.delivery.claim.failures").counter().count();
    }

    @Test
    void anOutageIsAnsweredCountedAndWarnedOnceAndTheServiceComesBackByItself() {
        String account = account();
        intake(event(account, 1), 202);
        awaitHooks(account, 1);

        try (LogCapture warnings = LogCapture.of(DeliveryWorker.class.getName(), Level.INFO)) {
            double before = claimFailures();
            await("the queue's gauges sampled").atMost(BACKGROUND)
                    .until(() -> !Double.isNaN(ManagementInterface.metric("hook_queue_depth", "")));
            RelayedPostgresTestResource.relay.down();

            given().header("Authorization", INTERNAL).contentType(ContentType.JSON).body(event(account, 2))
                    .post("/internal/v1/events").then().statusCode(503).header("Retry-After", "5")
                    .body("error_code", equalTo("DATABASE_UNAVAILABLE"))
                    .body("error_message", containsString("the request changed nothing"));
            await("three failed claims").atMost(BACKGROUND).until(() -> claimFailures() >= before + 3);
            List<String> claimWarnings = warnings.messages().stream()
                    .filter(m -> m.startsWith("Claiming due deliveries failed")).toList();
            assertEquals(1, claimWarnings.size(), warnings.messages().toString());
            assertTrue(claimWarnings.get(0).contains("hook_delivery_claim_failures_total"), claimWarnings.get(0));
            // a scrape reads no database: the queue's gauges show their last sample, not NaN from a failed read
            assertFalse(Double.isNaN(ManagementInterface.metric("hook_queue_depth", "")));
            assertFalse(Double.isNaN(ManagementInterface.metric("hook_endpoints_disabled", "")));
            assertTrue(ManagementInterface.metric("hook_delivery_claim_failures_total", "") >= before + 3);

            RelayedPostgresTestResource.relay.open();
            await("intake accepts again").atMost(BACKGROUND).until(() -> given().header("Authorization", INTERNAL)
                    .contentType(ContentType.JSON).body(event(account, 2)).post("/internal/v1/events")
                    .statusCode() == 202);
            awaitHooks(account, 2);
            await().atMost(BACKGROUND).until(() -> warnings.messages().contains("Claiming due deliveries works again"));
        }
    }

    private static ValidatableResponse post(Map<String, Object> event) {
        return given().header("Authorization", INTERNAL).contentType(ContentType.JSON).body(event)
                .post("/internal/v1/events").then();
    }

    /**
     * A database that stops answering (a partition: the relay holds every byte and closes nothing) holds no request
     * past the commit deadline (3 s in this profile): the event whose commit was on its way is answered OUTCOME_UNKNOWN
     * (it is in fact stored once the database answers), the one queued behind it DATABASE_UNAVAILABLE (never stored).
     */
    @Test
    void aDatabaseThatStopsAnsweringHoldsNoRequestPastTheCommitDeadline() throws Exception {
        String account = account();
        RelayedPostgresTestResource.liveConnections(pool, 4);
        intake(event(account, 1), 202);
        try (LogCapture warnings = LogCapture.of(GroupCommit.class.getName(), Level.INFO)) {
            RelayedPostgresTestResource.relay.freeze();
            try {
                post(event(account, 2)).statusCode(503).header("Retry-After", "5")
                        .body("error_code", equalTo("OUTCOME_UNKNOWN"))
                        .body("error_message", containsString("it may have taken effect"));
                // the writer still waits on that commit, so this event queues behind it and is withdrawn
                post(event(account, 3)).statusCode(503).header("Retry-After", "5")
                        .body("error_code", equalTo("DATABASE_UNAVAILABLE"))
                        .body("error_message", containsString("the request changed nothing"));
                assertTrue(warnings.messages().stream().anyMatch(m -> m.contains("platform.database.commit-deadline")),
                        warnings.messages().toString());
            } finally {
                RelayedPostgresTestResource.relay.open();
            }
        }
        await("the held commit ends").atMost(BACKGROUND)
                .until(() -> post(event(account, 2)).extract().statusCode() == 200);
        post(event(account, 2)).statusCode(200).body("duplicate", equalTo(true));
        post(event(account, 3)).statusCode(202);
        awaitHooks(account, 3);
    }
}
