package com.convplatform.hook.delivery;

import static com.convplatform.hook.HookPlatformResource.CERT_HOST;
import static com.convplatform.hook.HookPlatformResource.received;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.notNullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.convplatform.crypto.fetch.CertificateFetcher;
import com.convplatform.crypto.fetch.HostOverrides;
import com.convplatform.crypto.hook.HookVerifier;
import com.convplatform.crypto.testing.HttpsTestServer;
import com.convplatform.hook.HookPlatformResource;
import com.convplatform.hook.HookPlatformResource.Answer;
import com.convplatform.hook.HookPlatformResource.Received;
import com.convplatform.testsupport.ManagementInterface;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * End to end over HTTP: intake, durable delivery to a real receiver on loopback, and every hook verified with the
 * verifier integrators run (crypto-common's HookVerifier, fetching this service's certificate document over HTTPS).
 */
@QuarkusTest
@QuarkusTestResource(HookPlatformResource.class)
public class HookDeliveryTest {
    public static final String INTERNAL = "Bearer test-internal-key";
    public static final String OPERATOR = "Bearer test-operator-key";
    static final ObjectMapper JSON = new ObjectMapper();
    /**
     * The bound of a wait for a state that the dispatcher or a scheduler reaches in the background: generous, as CI runs
     * on two loaded cores; a wait ends as soon as the state is reached.
     */
    public static final Duration BACKGROUND = Duration.ofSeconds(30);
    static HttpsTestServer certHost;
    static HookVerifier verifier;

    @BeforeEach
    void receiverSideVerifier() {
        verifier();
    }

    /**
     * The verifier a receiver runs, downloading this service's certificate document over HTTPS (a loopback server
     * standing in for the certificate URL's host); made once.
     */
    public static synchronized HookVerifier verifier() {
        if (verifier != null) {
            return verifier;
        }
        String document = given().get("/platform/hooks/certificate/").then().statusCode(200).extract().asString();
        certHost = HttpsTestServer.start(HookPlatformResource.pki, CERT_HOST);
        certHost.serve("/platform/hooks/certificate/", "application/json", document);
        verifier = HookVerifier.builder().platformDomains("platform.example")
                .trustAnchors(HookPlatformResource.pki.anchors())
                .fetcher(CertificateFetcher.withDefaults(HookPlatformResource.pki.clientContext(),
                        HostOverrides.parse(List.of(certHost.override(CERT_HOST)))))
                .build();
        return verifier;
    }

    /** Stops the certificate's host; the next {@link #verifier()} starts another. */
    @AfterAll
    public static synchronized void stop() {
        if (certHost != null) {
            certHost.close();
        }
        certHost = null;
        verifier = null;
    }

    public static Map<String, Object> event(String account, long messageId) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("account_id", account);
        e.put("user_id", "u42");
        e.put("conversation_number", 7);
        e.put("message_body", "{\"text\":\"hi\",\"type\":\"TEXT\",\"data\":{\"quick_replies\":[]}}");
        e.put("message_id", messageId);
        e.put("sender", "user");
        e.put("timestamp", "2026-11-22T10:00:00.000Z");
        e.put("metadata", Map.of("channel", "web"));
        return e;
    }

    public static String intake(Map<String, Object> event, int status) {
        return given().header("Authorization", INTERNAL).contentType(ContentType.JSON).body(event)
                .post("/internal/v1/events").then().statusCode(status).body("event_id", notNullValue()).extract()
                .path("event_id");
    }

    public static String account() {
        return "acct-" + UUID.randomUUID();
    }

    public static List<Received> awaitHooks(String account, int n) {
        await().atMost(BACKGROUND).until(() -> received(account).size() >= n);
        return received(account);
    }

    /**
     * Waits until the account has {@code n} deliveries, every one delivered: recorded so once its receiver's answer
     * came, after which it is never claimed again. From then on the receiver's count of hooks is final.
     */
    public static void awaitDelivered(String account, int n) {
        await().atMost(BACKGROUND).until(() -> {
            List<Map<String, Object>> list = deliveries(account);
            return list.size() >= n && list.stream().allMatch(d -> "DELIVERED".equals(d.get("status")));
        });
        assertEquals(n, deliveries(account).size(), "deliveries of " + account);
    }

    static List<Map<String, Object>> deliveries(String account) {
        return given().header("Authorization", OPERATOR).queryParam("account_id", account).queryParam("limit", 1000)
                .get("/admin/v1/deliveries").then().statusCode(200).extract().path("$");
    }

    /**
     * The value of one series on the management interface's /q/metrics ({@code name{labels}}; a timestamp after it is
     * left out), 0 while it is absent.
     */
    public static double metric(String series) {
        int labels = series.indexOf('{');
        return ManagementInterface.metric(labels < 0 ? series : series.substring(0, labels),
                "^" + java.util.regex.Pattern.quote(labels < 0 ? "" : series.substring(labels)) + "$");
    }

    public static Map<String, Object> delivery(String account) {
        List<Map<String, Object>> list = given().header("Authorization", OPERATOR).queryParam("account_id", account)
                .get("/admin/v1/deliveries").then().statusCode(200).extract().path("$");
        return list.get(0);
    }

    @Test
    void theIntakeRequestIdIsItsTraceIdAnsweredStoredAndCarriedToTheAccountLookup() {
        String account = account();
        String traceId = "5bf92f3577b34da6a3ce929d0e0e4737";
        given().header("Authorization", INTERNAL).header("X-Request-Id", "upload-req-7")
                .header("traceparent", "00-" + traceId + "-00f067aa0ba902b7-01").contentType(ContentType.JSON)
                .body(event(account, 1)).post("/internal/v1/events").then().statusCode(202)
                .header("X-Request-Id", traceId);
        awaitHooks(account, 1);
        assertTrue(HookPlatformResource.LOOKUP_TRACEPARENTS.get(account).startsWith("00-" + traceId + "-"),
                "the lookup continues the intake's trace");
        assertEquals(traceId, requestId(account), "one id: the trace id, not the caller's own");
    }

    /** The request id of the account's (first listed) delivery, from its detail. */
    private static String requestId(String account) {
        return given().header("Authorization", OPERATOR)
                .get("/admin/v1/deliveries/" + delivery(account).get("delivery_id"))
                .then().statusCode(200).extract().path("request_id");
    }

    @Test
    void certificateEndpointServesTheChainAndItsFingerprint() {
        given().get("/platform/hooks/certificate/").then().statusCode(200)
                .body("certificate", org.hamcrest.Matchers.startsWith("-----BEGIN CERTIFICATE-----"))
                .body("sha256_fingerprint", org.hamcrest.Matchers.matchesPattern("[0-9a-f]{64}"))
                .body("not_after", notNullValue());
    }

    @Test
    void anAcceptedEventIsDeliveredSignedAndVerifiesWithTheIntegratorsVerifier() throws Exception {
        String account = account();
        String eventId = intake(event(account, 1), 202);
        Received hook = awaitHooks(account, 1).get(0);
        HookVerifier.Verified v = verifier.verify(hook.header("signature"), hook.header("signature-certificate-url"),
                hook.body());
        assertTrue(Duration.between(v.signatureTimestamp(), Instant.now()).abs().toSeconds() <= 5);
        JsonNode body = JSON.readTree(hook.body());
        assertEquals("u42", body.get("user_id").asText());
        assertEquals(7, body.get("conversation_number").asInt());
        assertEquals(1, body.get("message_id").asLong());
        assertEquals("user", body.get("sender").asText());
        assertEquals("web", body.get("metadata").get("channel").asText());
        assertTrue(body.get("message_body").isTextual());
        assertTrue(!body.has("account_id"), "account_id is not part of the spec 2.2 body");
        List<String> fields = new java.util.ArrayList<>();
        body.fieldNames().forEachRemaining(fields::add);
        assertEquals(List.of("user_id", "conversation_number", "message_body", "message_id", "sender", "timestamp",
                "metadata", "signature_timestamp"), fields, "the spec 2.2 fields, in its order");
        assertEquals("1", hook.header("X-Hook-Attempt"));
        assertNotNull(hook.header("X-Hook-Delivery-Id"));
        await().atMost(BACKGROUND).until(() -> "DELIVERED".equals(delivery(account).get("status")));
        assertEquals(eventId, delivery(account).get("event_id"));
    }

    /** What the p99 of intake to delivery is read from: {@code histogram_quantile} over fixed buckets. */
    @Test
    void theIntakeToDeliveryTimeIsPublishedAsAHistogram() {
        String all = "hook_intake_to_delivery_seconds_bucket{le=\"+Inf\"}";
        double before = metric(all); // the application's other deliveries are counted too
        String account = account();
        intake(event(account, 1), 202);
        awaitHooks(account, 1);
        await().atMost(BACKGROUND).until(() -> "DELIVERED".equals(delivery(account).get("status")));
        // recorded once the outcome is committed, so a moment after the delivery shows as DELIVERED
        await().atMost(BACKGROUND).until(() -> metric(all) >= before + 1);
        String metrics = given().get(ManagementInterface.url("/q/metrics")).then().statusCode(200).extract().asString();
        List<String> buckets = metrics.lines().filter(l -> l.startsWith("hook_intake_to_delivery_seconds_bucket"))
                .toList();
        assertEquals(DeliveryStore.INTAKE_TO_DELIVERY_BUCKETS.length + 1, buckets.size(), metrics);
        assertTrue(buckets.get(0).startsWith("hook_intake_to_delivery_seconds_bucket{le=\"0.01\"}"), buckets.get(0));
        String last = buckets.get(buckets.size() - 1);
        assertTrue(last.startsWith(all + " "), last);
    }

    @Test
    void anHttpsEndpointNamedByHostIsReachedAtTheCheckedAddressWithItsHostAndCertificate() throws Exception {
        String account = HookPlatformResource.TLS_ACCOUNT_PREFIX + UUID.randomUUID();
        intake(event(account, 1), 202);
        Received hook = awaitHooks(account, 1).get(0);
        verifier.verify(hook.header("signature"), hook.header("signature-certificate-url"), hook.body());
        assertEquals(HookPlatformResource.TLS_HOST + ":" + HookPlatformResource.tlsServer.port(),
                hook.header("Host"));
        await().atMost(BACKGROUND).until(() -> "DELIVERED".equals(delivery(account).get("status")));
    }

    @Test
    void theSameMessageTwiceIsAcceptedOnceAndDeliveredOnce() throws Exception {
        String account = account();
        String first = intake(event(account, 5), 202);
        given().header("Authorization", INTERNAL).contentType(ContentType.JSON).body(event(account, 5))
                .post("/internal/v1/events").then().statusCode(200).body("event_id", equalTo(first))
                .body("duplicate", equalTo(true));
        awaitDelivered(account, 1);
        assertEquals(1, received(account).size());
        assertEquals(1, delivery(account).get("attempts"));
    }

    /**
     * upload-service sends an event again when hook-service's answer was lost, maybe after its delivery finished: it is
     * found in the history (hook.intake.duplicate-window), answered as the same event, and not delivered again; single
     * and in a batch alike.
     */
    @Test
    void anEventSentAgainAfterItsDeliveryFinishedIsTheSameEventAndNotDeliveredAgain() throws Exception {
        String account = account();
        String first = intake(event(account, 8), 202);
        awaitDelivered(account, 1);
        given().header("Authorization", INTERNAL).contentType(ContentType.JSON).body(event(account, 8))
                .post("/internal/v1/events").then().statusCode(200).body("event_id", equalTo(first))
                .body("duplicate", equalTo(true));
        given().header("Authorization", INTERNAL).contentType(ContentType.JSON)
                .body(Map.of("events", List.of(event(account, 8), event(account, 9)))).post("/internal/v1/events/batch")
                .then().statusCode(200).body("results.status", equalTo(List.of(200, 202)))
                .body("results[0].event_id", equalTo(first));
        awaitDelivered(account, 2);
        assertEquals(List.of(8L, 9L), received(account).stream().map(h -> messageId(h)).sorted().toList(),
                "message 8 was delivered once");
    }

    @Test
    void eventsSentAtOnceAreEachAcceptedOnceEvenWhenTheyRepeatOneAnother() throws Exception {
        // 40 callers at once (they share intake transactions), each message id sent twice: 20 events.
        String account = account();
        java.util.concurrent.ExecutorService callers = java.util.concurrent.Executors.newFixedThreadPool(40);
        List<java.util.concurrent.Future<io.restassured.response.Response>> answers = new java.util.ArrayList<>();
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        try {
            for (int i = 0; i < 40; i++) {
                long messageId = 300 + i % 20;
                answers.add(callers.submit(() -> {
                    go.await();
                    return given().header("Authorization", INTERNAL).contentType(ContentType.JSON)
                            .body(event(account, messageId)).post("/internal/v1/events");
                }));
            }
            go.countDown();
            Map<Long, java.util.Set<String>> idsByMessage = new java.util.HashMap<>();
            int accepted = 0;
            for (int i = 0; i < 40; i++) {
                io.restassured.response.Response r = answers.get(i).get(30, java.util.concurrent.TimeUnit.SECONDS);
                assertTrue(r.statusCode() == 202 || r.statusCode() == 200, "status " + r.statusCode());
                if (r.statusCode() == 202) {
                    accepted++;
                } else {
                    assertEquals(Boolean.TRUE, r.jsonPath().get("duplicate"));
                }
                idsByMessage.computeIfAbsent(300L + i % 20, k -> new java.util.HashSet<>())
                        .add(r.jsonPath().getString("event_id"));
            }
            assertEquals(20, accepted, "each message id accepted once");
            idsByMessage.forEach((m, ids) -> assertEquals(1, ids.size(), "message " + m + " got event ids " + ids));
        } finally {
            callers.shutdownNow();
        }
        awaitDelivered(account, 20);
        // one delivery per event; a receiver slower than the read time-out may get an attempt again (at least once)
        List<Map<String, Object>> deliveries = given().header("Authorization", OPERATOR)
                .queryParam("account_id", account).get("/admin/v1/deliveries").then().statusCode(200).extract()
                .path("$");
        assertEquals(20, deliveries.size(), "each event stored once, as one delivery");
        assertEquals(deliveries.stream().mapToInt(d -> ((Number) d.get("attempts")).intValue()).sum(),
                received(account).size(), "every hook received is an attempt of one of them");
        assertEquals(20, received(account).stream().map(h -> {
            try {
                return JSON.readTree(h.body()).get("message_id").asLong();
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
        }).distinct().count());
    }

    @Test
    void aDeliveryBeingAttemptedCannotBeRetriedByTheOperator() {
        String account = account();
        java.util.concurrent.CountDownLatch lookup = HookPlatformResource.holdLookups(account);
        try {
            intake(event(account, 15), 202);
            // claimed, under its lease, and waiting for its account lookup: being attempted until the test lets go
            await().atMost(BACKGROUND).until(() -> HookPlatformResource.lookups(account) > 0);
            String id = (String) delivery(account).get("delivery_id");
            given().header("Authorization", OPERATOR).post("/admin/v1/deliveries/" + id + "/retry").then()
                    .statusCode(409).body("error_code", equalTo("DELIVERY_IN_FLIGHT"));
        } finally {
            lookup.countDown();
        }
        await().atMost(BACKGROUND).until(() -> "DELIVERED".equals(delivery(account).get("status")));
        assertEquals(((Number) delivery(account).get("attempts")).intValue(), received(account).size(),
                "every hook the receiver got is an attempt of the one delivery: the refused retry sent nothing");
    }

    @Test
    void serverErrorsAndTimeOutsAreRetriedWithAFreshSignatureEachTime() throws Exception {
        String account = account();
        HookPlatformResource.script(account, new Answer(500, 0, null), new Answer(200, 1500, null),
                new Answer(200, 0, null));
        intake(event(account, 9), 202);
        List<Received> hooks = awaitHooks(account, 3);
        List<Instant> stamped = new java.util.ArrayList<>();
        for (Received r : hooks) {
            stamped.add(verifier.verify(r.header("signature"), r.header("signature-certificate-url"), r.body())
                    .signatureTimestamp());
        }
        assertEquals(List.of("1", "2", "3"), hooks.stream().map(r -> r.header("X-Hook-Attempt")).toList());
        // each attempt is stamped as it is signed: the third comes over a second (the time-out) after the first
        assertTrue(stamped.get(2).isAfter(stamped.get(0)), "signature_timestamp of each attempt: " + stamped);
        assertTrue(!stamped.get(1).isBefore(stamped.get(0)) && !stamped.get(2).isBefore(stamped.get(1)),
                "signature_timestamp of each attempt: " + stamped);
        await().atMost(BACKGROUND).until(() -> "DELIVERED".equals(delivery(account).get("status")));
        String id = (String) delivery(account).get("delivery_id");
        given().header("Authorization", OPERATOR).get("/admin/v1/deliveries/" + id + "/attempts").then()
                .statusCode(200).body("status_code", org.hamcrest.Matchers.contains(500, null, 200))
                .body("[1].error", org.hamcrest.Matchers.containsString("timed out"));
    }

    @Test
    void retryAfterIsHonoured() {
        String account = account();
        HookPlatformResource.script(account, new Answer(503, 0, "2"));
        intake(event(account, 11), 202);
        List<Received> hooks = awaitHooks(account, 2);
        long gapMs = (hooks.get(1).atNanos() - hooks.get(0).atNanos()) / 1_000_000;
        assertTrue(gapMs >= 1500, "second attempt came after " + gapMs + " ms despite Retry-After: 2");
    }

    @Test
    void afterTheLastRetryADeliveryIsDeadLetteredAndReplayDeliversIt() {
        String account = account();
        HookPlatformResource.script(account, new Answer(500, 0, null), new Answer(500, 0, null),
                new Answer(500, 0, null), new Answer(500, 0, null));
        intake(event(account, 13), 202);
        await().atMost(BACKGROUND).until(() -> "DEAD".equals(delivery(account).get("status")));
        assertEquals(4, delivery(account).get("attempts"));
        given().header("Authorization", OPERATOR).queryParam("status", "DEAD").get("/admin/v1/deliveries").then()
                .statusCode(200).body("account_id", hasItem(account));
        given().header("Authorization", OPERATOR).post("/admin/v1/accounts/" + account + "/replay-dead-letters")
                .then().statusCode(200).body("requeued", equalTo(1));
        await().atMost(BACKGROUND).until(() -> "DELIVERED".equals(delivery(account).get("status")));
        assertEquals(5, received(account).size());
        assertEquals("5", received(account).get(4).header("X-Hook-Attempt"), "the replay's attempt goes on from 4");
        assertEquals(5, delivery(account).get("attempts"));
    }

    @Test
    void anUnknownAccountIsDeadLetteredWithTheReason() {
        intake(event(HookPlatformResource.UNKNOWN_ACCOUNT, 1), 202);
        await().atMost(BACKGROUND)
                .until(() -> "DEAD".equals(delivery(HookPlatformResource.UNKNOWN_ACCOUNT).get("status")));
        assertTrue(((String) delivery(HookPlatformResource.UNKNOWN_ACCOUNT).get("last_error"))
                .contains("does not exist"));
    }

    @Test
    void intakeRefusesBadCallsAndChangesNothing() {
        String account = account();
        given().contentType(ContentType.JSON).body(event(account, 1)).post("/internal/v1/events").then()
                .statusCode(401).body("error_code", equalTo("UNAUTHORIZED"));
        Map<String, Object> e = event(account, 1);
        e.remove("user_id");
        given().header("Authorization", INTERNAL).contentType(ContentType.JSON).body(e).post("/internal/v1/events")
                .then().statusCode(400).body("error_code", equalTo("MISSING_FIELD"))
                .body("error_message", org.hamcrest.Matchers.containsString("user_id"));
        e = event(account, 1);
        e.put("message_id", "x");
        given().header("Authorization", INTERNAL).contentType(ContentType.JSON).body(e).post("/internal/v1/events")
                .then().statusCode(400).body("error_code", equalTo("MISSING_FIELD"));
        e = event(account, 1);
        e.put("timestamp", "yesterday");
        given().header("Authorization", INTERNAL).contentType(ContentType.JSON).body(e).post("/internal/v1/events")
                .then().statusCode(400).body("error_code", equalTo("INVALID_TIMESTAMP"));
        e = event(account, 1);
        e.put("metadata", List.of(1));
        given().header("Authorization", INTERNAL).contentType(ContentType.JSON).body(e).post("/internal/v1/events")
                .then().statusCode(400).body("error_code", equalTo("INVALID_METADATA"));
        given().header("Authorization", OPERATOR).queryParam("account_id", account).get("/admin/v1/deliveries")
                .then().statusCode(200).body("size()", equalTo(0));
    }

    @Test
    void aBatchIsStoredEventByEventWithOneResultEachInOrder() throws Exception {
        String a = account();
        String b = account();
        String c = account();
        String earlier = intake(event(a, 1), 202);
        Map<String, Object> withoutUser = event(b, 1);
        withoutUser.remove("user_id");
        Map<String, Object> traced = event(c, 1);
        traced.put("traceparent", "00-6bf92f3577b34da6a3ce929d0e0e4738-00f067aa0ba902b7-01");
        List<Object> events = List.of(event(a, 1), event(a, 2), event(a, 2), withoutUser, event(b, 2), "not an event",
                traced);
        io.restassured.response.Response r = given().header("Authorization", INTERNAL)
                .header("traceparent", "00-7bf92f3577b34da6a3ce929d0e0e4739-00f067aa0ba902b7-01")
                .contentType(ContentType.JSON).body(Map.of("events", events))
                .post("/internal/v1/events/batch");
        r.then().statusCode(200).body("results.size()", equalTo(7))
                .body("results.status", equalTo(List.of(200, 202, 200, 400, 202, 400, 202)))
                .body("results[0].event_id", equalTo(earlier)).body("results[0].duplicate", equalTo(true))
                .body("results[3].error_code", equalTo("MISSING_FIELD"))
                .body("results[3].error_message", org.hamcrest.Matchers.containsString("user_id"))
                .body("results[5].error_code", equalTo("INVALID_EVENT"));
        assertEquals(r.jsonPath().getString("results[1].event_id"), r.jsonPath().getString("results[2].event_id"),
                "the same message twice in one batch is one event");
        assertEquals(Boolean.TRUE, r.jsonPath().get("results[2].duplicate"));
        awaitDelivered(a, 2);
        awaitDelivered(b, 1);
        awaitDelivered(c, 1);
        assertEquals(List.of(1L, 2L), received(a).stream().map(h -> messageId(h)).sorted().toList());
        assertEquals(List.of(2L), received(b).stream().map(h -> messageId(h)).toList());
        // an event's own trace, or else the call's, is continued, and its trace id is the deliveries' request id
        assertEquals("7bf92f3577b34da6a3ce929d0e0e4739", requestId(b));
        assertEquals("6bf92f3577b34da6a3ce929d0e0e4738", requestId(c));
        assertTrue(HookPlatformResource.LOOKUP_TRACEPARENTS.get(c).startsWith("00-6bf92f3577b34da6a3ce929d0e0e4738-"));
    }

    private static long messageId(Received hook) {
        try {
            return JSON.readTree(hook.body()).get("message_id").asLong();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aBatchCallThatIsNotABatchIsRefusedAndChangesNothing() {
        String account = account();
        Map<String, Object> batch = Map.of("events", List.of(event(account, 1)));
        given().contentType(ContentType.JSON).body(batch).post("/internal/v1/events/batch").then().statusCode(401)
                .body("error_code", equalTo("UNAUTHORIZED"));
        List<Map<String, Object>> tooMany = new java.util.ArrayList<>();
        for (int i = 0; i < 101; i++) {
            tooMany.add(event(account, 1000 + i));
        }
        Map<String, Object> badRequestId = event(account, 2);
        badRequestId.put("request_id", 7);
        for (Object body : List.of(List.of(event(account, 1)), Map.of("events", List.of()),
                Map.of("events", event(account, 1)), Map.of("other", 1), Map.of("events", tooMany))) {
            given().header("Authorization", INTERNAL).contentType(ContentType.JSON).body(body)
                    .post("/internal/v1/events/batch").then().statusCode(400)
                    .body("error_code", equalTo("INVALID_BATCH"))
                    .body("error_message", org.hamcrest.Matchers.containsString("1 to 100 events"));
        }
        given().header("Authorization", INTERNAL).contentType(ContentType.JSON).body("{\"events\": [")
                .post("/internal/v1/events/batch").then().statusCode(400);
        given().header("Authorization", INTERNAL).contentType(ContentType.JSON)
                .body(Map.of("events", List.of(badRequestId))).post("/internal/v1/events/batch").then()
                .statusCode(200).body("results[0].status", equalTo(400))
                .body("results[0].error_code", equalTo("INVALID_REQUEST_ID"));
        given().header("Authorization", OPERATOR).queryParam("account_id", account).get("/admin/v1/deliveries")
                .then().statusCode(200).body("size()", equalTo(0));
    }

    @Test
    void theOperatorApiNeedsItsKey() {
        given().get("/admin/v1/deliveries").then().statusCode(401).body("error_code", equalTo("UNAUTHORIZED"));
        given().header("Authorization", INTERNAL).get("/admin/v1/deliveries").then().statusCode(403)
                .body("error_code", equalTo("FORBIDDEN"));
        given().header("Authorization", OPERATOR).queryParam("status", "NOPE").get("/admin/v1/deliveries").then()
                .statusCode(400).body("error_code", equalTo("INVALID_STATUS"));
        given().header("Authorization", OPERATOR).post("/admin/v1/deliveries/nope/retry").then().statusCode(404)
                .body("error_code", equalTo("DELIVERY_NOT_FOUND"));
    }
}
