package com.convplatform.hook.admin;

import static com.convplatform.hook.HookPlatformResource.received;
import static com.convplatform.hook.delivery.HookDeliveryTest.INTERNAL;
import static com.convplatform.hook.delivery.HookDeliveryTest.OPERATOR;
import static com.convplatform.hook.delivery.HookDeliveryTest.account;
import static com.convplatform.hook.delivery.HookDeliveryTest.awaitDelivered;
import static com.convplatform.hook.delivery.HookDeliveryTest.event;
import static com.convplatform.hook.delivery.HookDeliveryTest.intake;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.notNullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import com.convplatform.crypto.FailureCode;
import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.hook.HookHeaders;
import com.convplatform.crypto.hook.HookVerifier;
import com.convplatform.hook.HookPlatformResource;
import com.convplatform.hook.HookPlatformResource.Answer;
import com.convplatform.hook.HookPlatformResource.Received;
import com.convplatform.hook.delivery.HookDeliveryTest;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * The operator views behind the console: one delivery with its event and its attempts (each with the signature headers
 * it sent, verified over the body the receiver got), attempt numbers after a retry, the filters and pages, and the
 * summary.
 */
@QuarkusTest
@QuarkusTestResource(HookPlatformResource.class)
class DeliveryInsightsTest {
    private static List<Map<String, Object>> list(Map<String, ?> query) {
        return given().header("Authorization", OPERATOR).queryParams(query).get("/admin/v1/deliveries").then()
                .statusCode(200).extract().path("$");
    }

    @Test
    void oneDeliveryCarriesItsMessageIdPayloadAndRequestId() {
        String account = account();
        given().header("Authorization", INTERNAL).header("X-Request-Id", "insight-req-1")
                .header("traceparent", "00-8bf92f3577b34da6a3ce929d0e0e4740-00f067aa0ba902b7-01")
                .contentType(ContentType.JSON)
                .body(event(account, 4711)).post("/internal/v1/events").then().statusCode(202);
        awaitDelivered(account, 1);
        String id = (String) list(Map.of("account_id", account)).get(0).get("delivery_id");

        given().header("Authorization", OPERATOR).get("/admin/v1/deliveries/" + id).then().statusCode(200)
                .body("delivery_id", equalTo(id)).body("account_id", equalTo(account)).body("message_id", equalTo(4711))
                .body("status", equalTo("DELIVERED")).body("request_id", equalTo("8bf92f3577b34da6a3ce929d0e0e4740"))
                .body("payload", containsString("\"message_id\":4711"))
                .body("payload", containsString("quick_replies"));
    }

    private static io.restassured.response.ValidatableResponse detail(String id) {
        return given().header("Authorization", OPERATOR).get("/admin/v1/deliveries/" + id).then().statusCode(200);
    }

    private static String onlyDelivery(String account) {
        List<Map<String, Object>> rows = list(Map.of("account_id", account));
        assertEquals(1, rows.size(), rows.toString());
        return (String) rows.get(0).get("delivery_id");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> signatureHeaders(Map<String, Object> attempt) {
        return (Map<String, String>) attempt.get("signature_headers");
    }

    @AfterAll
    static void stopTheCertificateHost() {
        HookDeliveryTest.stop();
    }

    @Test
    void eachAttemptShowsTheSignatureHeadersItSentAndTheStoredSignatureVerifiesOverTheDeliveredBody()
            throws Exception {
        String account = account();
        HookPlatformResource.script(account, new Answer(500, 0, null));
        intake(event(account, 4712), 202);
        awaitDelivered(account, 1);
        List<Received> hooks = received(account);
        assertEquals(2, hooks.size(), "a 500, then the retry answered 200");
        String id = onlyDelivery(account);

        List<Map<String, Object>> attempts = detail(id).body("attempts", equalTo(2))
                .body("attempt_history.attempt", contains(1, 2)).body("attempt_history.status_code", contains(500, 200))
                .extract().path("attempt_history");
        HookVerifier verifier = HookDeliveryTest.verifier();
        for (int i = 0; i < 2; i++) {
            Map<String, String> stored = signatureHeaders(attempts.get(i));
            Received sent = hooks.get(i);
            assertEquals(String.valueOf(i + 1), sent.header("X-Hook-Attempt"));
            // Exactly the signing headers, under the names hook-service sends (spec 4.4), with the values sent.
            assertEquals(List.of(HookHeaders.SIGNATURE, HookHeaders.CERTIFICATE_URL), List.copyOf(stored.keySet()));
            assertEquals(sent.header("signature"), stored.get(HookHeaders.SIGNATURE));
            assertEquals(sent.header("signature-certificate-url"), stored.get(HookHeaders.CERTIFICATE_URL));
            assertEquals("https://" + HookPlatformResource.CERT_HOST + "/platform/hooks/certificate/",
                    stored.get(HookHeaders.CERTIFICATE_URL));
            // The stored value verifies over the body the receiver got, with the published certificate.
            verifier.verify(stored.get(HookHeaders.SIGNATURE), stored.get(HookHeaders.CERTIFICATE_URL), sent.body());
        }
        // It is the signature of exactly those bytes: one byte changed and it no longer verifies.
        Map<String, String> last = signatureHeaders(attempts.get(1));
        byte[] changed = hooks.get(1).body().clone();
        changed[changed.length - 3]++;
        VerificationException mismatch = assertThrows(VerificationException.class, () -> verifier
                .verify(last.get(HookHeaders.SIGNATURE), last.get(HookHeaders.CERTIFICATE_URL), changed));
        assertEquals(FailureCode.SIGNATURE_MISMATCH, mismatch.code());

        // The attempts list says the same.
        given().header("Authorization", OPERATOR).get("/admin/v1/deliveries/" + id + "/attempts").then()
                .statusCode(200).body("signature_headers", equalTo(attempts.stream()
                        .map(a -> a.get("signature_headers")).toList()));
    }

    @Test
    void anAttemptThatSentNoRequestShowsNoSignatureHeaders() {
        String account = account();
        HookPlatformResource.WEBHOOKS.put(account, "ftp://hooks.receiver.test/" + account);
        intake(event(account, 1), 202);
        String id = onlyDelivery(account);
        await().atMost(Duration.ofSeconds(15)).until(() -> "DEAD".equals(given().header("Authorization", OPERATOR)
                .get("/admin/v1/deliveries/" + id).then().extract().path("status")));
        detail(id).body("attempt_history", hasSize(4))
                .body("attempt_history.error", everyItem(containsString("not an absolute http(s) URL")))
                .body("attempt_history.signature_headers", everyItem(equalTo(Map.of())));
        assertEquals(List.of(), received(account));
    }

    @Test
    void afterAnOperatorRetryAttemptNumbersGoOnAndTheRetryScheduleStartsAgain() {
        String account = account();
        // Four failures: the first attempt and the three retries of the test schedule, then dead.
        HookPlatformResource.script(account, new Answer(500, 0, null), new Answer(500, 0, null),
                new Answer(500, 0, null), new Answer(500, 0, null));
        intake(event(account, 9), 202);
        String id = onlyDelivery(account);
        await().atMost(Duration.ofSeconds(15)).until(() -> "DEAD".equals(given().header("Authorization", OPERATOR)
                .get("/admin/v1/deliveries/" + id).then().extract().path("status")));
        detail(id).body("attempts", equalTo(4)).body("attempt_history.attempt", contains(1, 2, 3, 4));

        // The receiver is looked at and the operator retries: three more failures still leave it retrying (a full
        // schedule again), the fourth attempt after the retry is answered 200. Attempts 5 to 8, never 1 to 4 again.
        // (Enabling the endpoint clears its failure streak, which would otherwise disable it by the test's rule: 6
        // failures over 1 s.)
        HookPlatformResource.script(account, new Answer(500, 0, null), new Answer(500, 0, null),
                new Answer(500, 0, null));
        given().header("Authorization", OPERATOR).post("/admin/v1/accounts/" + account + "/endpoint/enable").then()
                .statusCode(200).body("consecutive_failures", equalTo(0));
        given().header("Authorization", OPERATOR).post("/admin/v1/deliveries/" + id + "/retry").then()
                .statusCode(200).body("status", equalTo("PENDING")).body("attempts", equalTo(4));
        awaitDelivered(account, 1);
        detail(id).body("attempts", equalTo(8))
                .body("attempt_history.attempt", contains(1, 2, 3, 4, 5, 6, 7, 8))
                .body("attempt_history.status_code", contains(500, 500, 500, 500, 500, 500, 500, 200));
        given().header("Authorization", OPERATOR).get("/admin/v1/deliveries/" + id + "/attempts").then()
                .statusCode(200).body("attempt", contains(1, 2, 3, 4, 5, 6, 7, 8));
        assertEquals(List.of("1", "2", "3", "4", "5", "6", "7", "8"),
                received(account).stream().map(h -> h.header("X-Hook-Attempt")).toList(), "X-Hook-Attempt sent");

        // Delivered: nothing more to retry, and the numbers stay as they are.
        given().header("Authorization", OPERATOR).post("/admin/v1/deliveries/" + id + "/retry").then()
                .statusCode(409).body("error_code", equalTo("ALREADY_DELIVERED"));
        given().header("Authorization", OPERATOR).post("/admin/v1/deliveries/nope/retry").then().statusCode(404)
                .body("error_code", equalTo("DELIVERY_NOT_FOUND"));
        given().header("Authorization", INTERNAL).post("/admin/v1/deliveries/" + id + "/retry").then()
                .statusCode(403).body("error_code", equalTo("FORBIDDEN"));
        detail(id).body("attempts", equalTo(8)).body("attempt_history", hasSize(8));
    }

    @jakarta.inject.Inject
    javax.sql.DataSource dataSource;

    /**
     * An operator's retry that meets an outcome being recorded (another replica holds the row) waits for it and
     * answers from it: here the delivery turns DELIVERED meanwhile, so the retry is 409 ALREADY_DELIVERED and the
     * row stays delivered, instead of being set back to PENDING and sent again.
     */
    @Test
    void aRetryWaitsForAnOutcomeBeingRecordedAndDoesNotUndoIt() throws Exception {
        String account = account();
        HookPlatformResource.script(account, new Answer(500, 0, null), new Answer(500, 0, null),
                new Answer(500, 0, null), new Answer(500, 0, null));
        intake(event(account, 12), 202);
        String id = onlyDelivery(account);
        await().atMost(Duration.ofSeconds(15)).until(() -> "DEAD".equals(detail(id).extract().path("status")));
        try (java.sql.Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            // plays another replica recording the delivery as delivered: the dead letter is taken, and its history
            // row written, in a transaction that commits only below
            try (var take = c.prepareStatement("delete from dead_letter where delivery_id = ?");
                    var finish = c.prepareStatement("insert into delivery_history (id, event_id, account_id,"
                            + " message_id, status, attempts, payload, received_at, finished_at) select id, event_id,"
                            + " account_id, message_id, 'DELIVERED', attempts + 1, payload, received_at, now() from"
                            + " delivery_history where id = ?")) {
                take.setObject(1, java.util.UUID.fromString(id));
                assertEquals(1, take.executeUpdate()); // the row is held until the commit below
                finish.setObject(1, java.util.UUID.fromString(id));
                assertEquals(1, finish.executeUpdate());
            }
            var retry = java.util.concurrent.CompletableFuture.supplyAsync(() -> given()
                    .header("Authorization", OPERATOR).post("/admin/v1/deliveries/" + id + "/retry").then()
                    .extract());
            await().atMost(Duration.ofSeconds(10)).until(() -> com.convplatform.hook.QueueRows.count("select count(*)"
                    + " from pg_stat_activity where wait_event_type = 'Lock' and query like 'delete from dead_letter%'") == 1); // the retry waits for the row
            org.junit.jupiter.api.Assertions.assertFalse(retry.isDone(), "the retry waits for the row");
            c.commit();
            var answer = retry.get(10, java.util.concurrent.TimeUnit.SECONDS);
            assertEquals(409, answer.statusCode(), answer.asString());
            assertEquals("ALREADY_DELIVERED", answer.path("error_code"));
        }
        detail(id).body("status", equalTo("DELIVERED"));
    }

    @Test
    void theOpenApiDocumentDescribesEachAttemptsSignatureHeadersWithAnExample() {
        given().accept(ContentType.JSON).get("/q/openapi").then().statusCode(200)
                .body("components.schemas.DeliveryDetail.properties.attempt_history.items.$ref",
                        equalTo("#/components/schemas/AttemptView"))
                .body("components.schemas.AttemptView.properties.signature_headers.type", equalTo("object"))
                .body("components.schemas.AttemptView.properties.signature_headers.description",
                        allOf(containsString("exactly as sent"), containsString("Not secret"),
                                containsString("An empty object when none were recorded")))
                .body("components.schemas.AttemptView.properties.signature_headers.examples[0].signature",
                        matchesPattern("[A-Za-z0-9+/]{342}=="))
                .body("components.schemas.AttemptView.properties.signature_headers.examples[0].'signature-certificate-url'",
                        equalTo("https://hooks.platform.example/platform/hooks/certificate/"));
    }

    @Test
    void oneDeliveryIsRefusedWithoutTheOperatorKeyAndWhenUnknown() {
        given().get("/admin/v1/deliveries/nope").then().statusCode(401).body("error_code", equalTo("UNAUTHORIZED"));
        given().header("Authorization", INTERNAL).get("/admin/v1/deliveries/summary").then().statusCode(403)
                .body("error_code", equalTo("FORBIDDEN"));
        given().header("Authorization", OPERATOR).get("/admin/v1/deliveries/nope").then().statusCode(404)
                .body("error_code", equalTo("DELIVERY_NOT_FOUND"));
    }

    @Test
    void aMessageIsFoundByItsIdWithinItsAccount() {
        String account = account();
        intake(event(account, 1), 202);
        String second = intake(event(account, 2), 202);
        List<Map<String, Object>> found = list(Map.of("account_id", account, "message_id", 2));
        assertEquals(1, found.size());
        assertEquals(second, found.get(0).get("event_id"));
        assertEquals(List.of(), list(Map.of("account_id", account, "message_id", 3)), "a message never received");

        given().header("Authorization", OPERATOR).queryParam("message_id", 2).get("/admin/v1/deliveries").then()
                .statusCode(400).body("error_code", equalTo("ACCOUNT_ID_REQUIRED"));
    }

    @Test
    void timeFiltersAndPagesNeitherSkipNorRepeat() {
        String account = account();
        Instant before = Instant.now().minusSeconds(1);
        for (int i = 1; i <= 3; i++) {
            intake(event(account, i), 202);
        }
        assertEquals(3, list(Map.of("account_id", account, "created_after", before.toString())).size());
        assertEquals(List.of(), list(Map.of("account_id", account, "created_after",
                Instant.now().plusSeconds(60).toString())));

        List<String> seen = new ArrayList<>();
        Map<String, Object> last = null;
        for (int page = 0; page < 4; page++) {
            Map<String, Object> query = new java.util.HashMap<>(Map.of("account_id", account, "limit", 1));
            if (last != null) {
                query.put("created_before", last.get("created_at"));
                query.put("before_id", last.get("delivery_id"));
            }
            List<Map<String, Object>> rows = list(query);
            if (rows.isEmpty()) {
                break;
            }
            last = rows.get(0);
            seen.add((String) last.get("delivery_id"));
        }
        assertEquals(3, seen.size(), "pages " + seen);
        assertEquals(3, new HashSet<>(seen).size(), "a delivery repeated: " + seen);

        given().header("Authorization", OPERATOR).queryParam("created_before", "yesterday")
                .get("/admin/v1/deliveries").then().statusCode(400).body("error_code", equalTo("INVALID_TIME"))
                .body("error_message", containsString("created_before"));
    }

    private static io.restassured.path.json.JsonPath summary() {
        return given().header("Authorization", OPERATOR).get("/admin/v1/deliveries/summary").then().statusCode(200)
                .extract().jsonPath();
    }

    private static long deliveredInTheHours(io.restassured.path.json.JsonPath summary) {
        return summary.getList("hours.delivered", Long.class).stream().mapToLong(Long::longValue).sum();
    }

    /**
     * The application's other tests' deliveries are counted too, some finishing in the background meanwhile: what this
     * test did shows as growth from the summary before it.
     */
    @Test
    void theSummaryCountsByStatusAndListsTheDisabledEndpointsWithTheirHeldDeliveries() {
        io.restassured.path.json.JsonPath before = summary();
        String delivered = account();
        intake(event(delivered, 1), 202);
        awaitDelivered(delivered, 1);
        String held = account();
        given().header("Authorization", OPERATOR).contentType(ContentType.JSON).body(Map.of("reason", "maintenance"))
                .post("/admin/v1/accounts/" + held + "/endpoint/disable").then().statusCode(200);
        intake(event(held, 1), 202);
        String heldCreatedAt = (String) list(Map.of("account_id", held)).get(0).get("created_at");

        io.restassured.path.json.JsonPath after = summary();
        for (String delivering : List.of("last_hour.DELIVERED", "last_day.DELIVERED")) {
            assertTrue(after.getLong(delivering) >= before.getLong(delivering) + 1,
                    delivering + " before " + before.prettify() + " after " + after.prettify());
        }
        assertTrue(deliveredInTheHours(after) >= deliveredInTheHours(before) + 1, after.prettify());
        assertTrue(after.getLong("held") >= before.getLong("held") + 1, after.prettify());
        // the held delivery is pending too (pending ones elsewhere may have finished meanwhile)
        assertTrue(after.getLong("pending") >= after.getLong("held"), after.prettify());
        assertTrue(after.getLong("last_hour.PENDING") >= 1, after.prettify());
        assertTrue(after.getLong("disabled_count") >= before.getLong("disabled_count") + 1, after.prettify());
        assertFalse(Instant.parse(after.getString("oldest_undelivered_at")).isAfter(Instant.parse(heldCreatedAt)),
                "the held delivery is pending: the oldest pending is no younger; " + after.prettify());
        given().header("Authorization", OPERATOR).get("/admin/v1/deliveries/summary").then().statusCode(200)
                .body("at", notNullValue()).body("last_hour.DEAD", notNullValue())
                .body("disabled_endpoints.account_id", hasItem(held))
                .body("disabled_endpoints.find { it.account_id == '" + held + "' }.disabled_reason",
                        equalTo("maintenance"))
                .body("disabled_endpoints.find { it.account_id == '" + held + "' }.held_deliveries", equalTo(1))
                .body("hours", hasSize(24)).body("hours[0].hour", notNullValue());

        given().header("Authorization", OPERATOR).post("/admin/v1/accounts/" + held + "/endpoint/enable").then()
                .statusCode(200);
        awaitDelivered(held, 1);
        given().header("Authorization", OPERATOR).get("/admin/v1/deliveries/summary").then().statusCode(200)
                .body("disabled_endpoints.account_id", org.hamcrest.Matchers.not(hasItem(held)));
    }

    @Test
    void noDeliveriesGiveAnEmptyList() {
        given().header("Authorization", OPERATOR).queryParam("account_id", account()).get("/admin/v1/deliveries")
                .then().statusCode(200).body("$", empty()).body("$", hasSize(0));
    }
}
