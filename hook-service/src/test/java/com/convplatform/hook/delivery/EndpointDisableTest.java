package com.convplatform.hook.delivery;

import static com.convplatform.hook.HookPlatformResource.received;
import static com.convplatform.hook.delivery.HookDeliveryTest.BACKGROUND;
import static com.convplatform.hook.delivery.HookDeliveryTest.OPERATOR;
import static com.convplatform.hook.delivery.HookDeliveryTest.account;
import static com.convplatform.hook.delivery.HookDeliveryTest.delivery;
import static com.convplatform.hook.delivery.HookDeliveryTest.event;
import static com.convplatform.hook.delivery.HookDeliveryTest.intake;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.convplatform.hook.HookPlatformResource;
import com.convplatform.hook.HookPlatformResource.Answer;
import com.convplatform.hook.QueueRows;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;

/**
 * The endpoint rule (tests: disabled after at least 6 failed attempts in a row spanning at least 1 s), the operator's
 * disable and enable, and that a disabled endpoint's deliveries are held, never lost, and delivered once it is enabled.
 */
@QuarkusTest
@QuarkusTestResource(HookPlatformResource.class)
class EndpointDisableTest {
    /**
     * Returns once a claim has run after this call began: a delivery of another account, accepted now, was sent.
     * Claims take the oldest due deliveries first, so a claim that took it took every claimable delivery due before.
     */
    static void aLaterClaimRan() {
        String probe = account();
        intake(event(probe, 1), 202);
        HookDeliveryTest.awaitHooks(probe, 1);
    }

    /** The delivery of {@code eventId} was never claimed: no lease, no attempt, still pending. */
    void neverClaimed(String eventId) {
        QueueRows.Queued d = QueueRows.queuedOfEvent(eventId);
        assertNotNull(d, "a disabled endpoint's delivery left the queue");
        assertNull(d.leaseOwner(), "a disabled endpoint's delivery was claimed");
        assertEquals(0, d.attempts());
        assertTrue(d.held(), "a disabled endpoint's delivery is held");
    }

    static ValidatableResponse endpoint(String account) {
        return given().header("Authorization", OPERATOR).get("/admin/v1/accounts/" + account + "/endpoint").then()
                .statusCode(200);
    }

    static boolean enabled(String account) {
        return endpoint(account).extract().path("enabled");
    }

    @Test
    void anEndpointThatKeepsFailingIsDisabledByTheRuleAndItsDeliveriesAreHeldUntilEnabled() {
        String account = account();
        Answer[] failures = new Answer[200];
        java.util.Arrays.fill(failures, new Answer(500, 0, null));
        HookPlatformResource.script(account, failures);
        AtomicLong id = new AtomicLong(1);
        // an event every 150 ms (each attempted up to 4 times) until the rule's 6 failures over 1 s have come
        await("the rule disables the failing endpoint").atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(150)).until(() -> {
                    if (!enabled(account)) {
                        return true;
                    }
                    intake(event(account, id.getAndIncrement()), 202);
                    return false;
                });
        endpoint(account).body("disabled_by", equalTo("rule")).body("consecutive_failures", greaterThanOrEqualTo(6))
                .body("failing_since", notNullValue()).body("disabled_reason", containsString("in a row failed"));

        // Held: a new event is accepted and stored but not attempted while the endpoint is disabled. First the
        // attempts already claimed when it was disabled end (their calls to the receiver all came before).
        await().atMost(Duration.ofSeconds(10))
                .until(() -> QueueRows.ofAccount(account).stream().allMatch(q -> q.leaseOwner() == null));
        int before = received(account).size();
        String heldEvent = intake(event(account, 1000), 202);
        aLaterClaimRan();
        neverClaimed(heldEvent);
        assertEquals(before, received(account).size(), "a disabled endpoint received a hook");
        long held = ((Number) endpoint(account).extract().path("held_deliveries")).longValue();
        assertTrue(held >= 1, "the new delivery is held");

        // The receiver is fixed and the operator enables the endpoint: every held delivery goes out.
        HookPlatformResource.SCRIPT.remove(account);
        given().header("Authorization", OPERATOR).post("/admin/v1/accounts/" + account + "/endpoint/enable").then()
                .statusCode(200).body("enabled", equalTo(true)).body("consecutive_failures", equalTo(0))
                .body("disabled_at", nullValue());
        await().atMost(Duration.ofSeconds(10)).until(() -> ((Number) endpoint(account).extract()
                .path("held_deliveries")).longValue() == 0);
        assertTrue(received(account).size() >= before + held);
        await().atMost(BACKGROUND).until(() -> "DELIVERED".equals(delivery(account).get("status")));
    }

    @Test
    void theOperatorDisablesAndEnablesAnEndpointByHand() {
        String other = account();
        given().header("Authorization", OPERATOR).post("/admin/v1/accounts/" + other + "/endpoint/disable").then()
                .statusCode(200).body("enabled", equalTo(false))
                .body("disabled_reason", equalTo("disabled by an operator"));
        String account = account();
        endpoint(account).body("enabled", equalTo(true)).body("consecutive_failures", equalTo(0))
                .body("held_deliveries", equalTo(0));
        given().header("Authorization", OPERATOR).contentType(ContentType.JSON)
                .body(Map.of("reason", "receiver under maintenance"))
                .post("/admin/v1/accounts/" + account + "/endpoint/disable").then().statusCode(200)
                .body("enabled", equalTo(false)).body("disabled_by", equalTo("operator"))
                .body("disabled_reason", equalTo("receiver under maintenance")).body("disabled_at", notNullValue());
        String held = intake(event(account, 1), 202);
        aLaterClaimRan();
        neverClaimed(held);
        assertEquals(0, received(account).size());
        assertEquals("PENDING", delivery(account).get("status"));
        assertEquals(0, delivery(account).get("attempts"));
        endpoint(account).body("held_deliveries", equalTo(1));

        given().header("Authorization", OPERATOR).post("/admin/v1/accounts/" + account + "/endpoint/enable").then()
                .statusCode(200).body("enabled", equalTo(true));
        await().atMost(Duration.ofSeconds(10)).until(() -> "DELIVERED".equals(delivery(account).get("status")));
        assertEquals(1, received(account).size());
    }

    @Inject
    javax.sql.DataSource dataSource;

    @Test
    void twoOperatorsDisablingAtOnceBothGetTheDisabledEndpoint() throws Exception {
        String account = account();
        var answer = com.convplatform.crypto.testing.HeldRow.whileInserting(dataSource,
                "insert into endpoint_state (account_id, consecutive_failures, disabled_at, disabled_by,"
                        + " disabled_reason) values (?, 0, ?, 'operator', 'first')",
                new Object[]{account, java.sql.Timestamp.from(java.time.Instant.now())},
                () -> given().header("Authorization", OPERATOR).contentType(ContentType.JSON)
                        .body(Map.of("reason", "second")).post("/admin/v1/accounts/" + account + "/endpoint/disable")
                        .then().extract(),
                io.restassured.response.ExtractableResponse::asString);
        assertEquals(200, answer.statusCode(), answer.asString());
        assertEquals(false, answer.path("enabled"));
        assertEquals("second", answer.path("disabled_reason"));
    }

    @Test
    void endpointCallsNeedTheOperatorKeyAndValidInput() {
        String account = account();
        given().get("/admin/v1/accounts/" + account + "/endpoint").then().statusCode(401)
                .body("error_code", equalTo("UNAUTHORIZED"));
        given().post("/admin/v1/accounts/" + account + "/endpoint/disable").then().statusCode(401);
        given().post("/admin/v1/accounts/" + account + "/endpoint/enable").then().statusCode(401);
        given().header("Authorization", OPERATOR).contentType(ContentType.JSON).body(Map.of("reason", "x".repeat(501)))
                .post("/admin/v1/accounts/" + account + "/endpoint/disable").then().statusCode(400)
                .body("error_code", equalTo("INVALID_REASON"));
        given().header("Authorization", OPERATOR).post("/admin/v1/accounts/" + "a".repeat(65) + "/endpoint/disable")
                .then().statusCode(400).body("error_code", equalTo("INVALID_ACCOUNT_ID"));
        given().header("Authorization", OPERATOR).contentType(ContentType.JSON).body("{\"reason\": 4")
                .post("/admin/v1/accounts/" + account + "/endpoint/disable").then().statusCode(400)
                .body("error_code", equalTo("MALFORMED_JSON"));
        endpoint(account).body("enabled", equalTo(true));
    }

    @Test
    void aDeliveryStoredWhileItsEndpointIsBeingEnabledIsNotLeftHeld() throws Exception {
        String account = account();
        given().header("Authorization", OPERATOR).post("/admin/v1/accounts/" + account + "/endpoint/disable").then()
                .statusCode(200);
        java.time.OffsetDateTime now = java.time.OffsetDateTime.now(java.time.ZoneOffset.UTC);
        String payload = "{\"user_id\":\"u\",\"conversation_number\":1,\"message_body\":\"{}\",\"message_id\":1,"
                + "\"sender\":\"user\",\"timestamp\":\"2026-11-22T10:00:00.000Z\",\"metadata\":{}}";
        java.util.concurrent.CompletableFuture<Integer> enabling;
        try (java.sql.Connection storing = QueueRows.dataSource().getConnection()) {
            storing.setAutoCommit(false);
            // intake's own statement, its transaction still open: it read the endpoint disabled and stored the row held
            try (java.sql.PreparedStatement s = storing.prepareStatement(IntakeRepository.INSERT)) {
                com.convplatform.support.LocalTransaction.bind(s, java.util.UUID.randomUUID(),
                        java.util.UUID.randomUUID(), account, 1L, payload, null, null, now, now, account)
                        .executeUpdate();
            }
            enabling = java.util.concurrent.CompletableFuture.supplyAsync(() -> given()
                    .header("Authorization", OPERATOR).post("/admin/v1/accounts/" + account + "/endpoint/enable")
                    .then().extract().statusCode());
            // the enabling waits for the lock intake holds on the endpoint's row (under FOR KEY SHARE it went on,
            // let go of the rows held then, and this one stayed held on an enabled endpoint)
            await("the enabling waits for the delivery being stored").atMost(Duration.ofSeconds(10))
                    .until(EndpointDisableTest::anEnablingWaitsForALock);
            storing.commit();
        }
        assertEquals(200, enabling.get(10, java.util.concurrent.TimeUnit.SECONDS));
        await().atMost(Duration.ofSeconds(10)).until(() -> "DELIVERED".equals(delivery(account).get("status")));
    }

    @Test
    void aDeliveryOfADisabledEndpointThatIsNotHeldIsHeldByTheClaimThatFindsIt() {
        // as intake leaves a delivery whose endpoint was disabled after it looked (the disable held the rows it saw)
        String account = account();
        given().header("Authorization", OPERATOR).post("/admin/v1/accounts/" + account + "/endpoint/disable").then()
                .statusCode(200);
        String id = QueueRows.leftByDeadReplica(account, 1, java.time.Instant.now().minusSeconds(1));
        int before = received(account).size();
        aLaterClaimRan();
        QueueRows.Queued d = QueueRows.queued(id);
        assertTrue(d.held(), "held by the claim");
        assertNull(d.leaseOwner(), "and its lease let go");
        assertEquals(before, received(account).size(), "a disabled endpoint received a hook");
        given().header("Authorization", OPERATOR).post("/admin/v1/accounts/" + account + "/endpoint/enable").then()
                .statusCode(200);
        await().atMost(Duration.ofSeconds(10)).until(() -> QueueRows.queued(id) == null);
        assertEquals("DELIVERED", delivery(account).get("status"));
    }

    private static boolean anEnablingWaitsForALock() throws java.sql.SQLException {
        try (java.sql.Connection c = QueueRows.dataSource().getConnection();
                java.sql.PreparedStatement s = c.prepareStatement("select count(*) from pg_stat_activity where"
                        + " wait_event_type = 'Lock' and query like 'update endpoint_state set disabled_at = null%'");
                java.sql.ResultSet r = s.executeQuery()) {
            r.next();
            return r.getLong(1) > 0;
        }
    }
}
