package com.convplatform.hook.tracing;

import static com.convplatform.hook.delivery.HookDeliveryTest.INTERNAL;
import static com.convplatform.hook.delivery.HookDeliveryTest.account;
import static com.convplatform.hook.delivery.HookDeliveryTest.awaitDelivered;
import static com.convplatform.hook.delivery.HookDeliveryTest.event;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.logging.Level;

import jakarta.inject.Inject;

import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logmanager.formatters.PatternFormatter;
import org.junit.jupiter.api.Test;

import com.convplatform.hook.HookPlatformResource;
import com.convplatform.hook.HookPlatformResource.Answer;
import com.convplatform.hook.delivery.DeliveryTracing;
import com.convplatform.testsupport.LogCapture;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * One event's trace over HTTP: the trace context of the intake call (or, in a batch, the event's own) is stored with
 * the event, and its delivery's spans (the wait in the queue, each attempt, the account lookup at management-service)
 * continue that trace; the receiver gets no trace context, and no span carries the hook's body.
 */
@QuarkusTest
@QuarkusTestResource(HookPlatformResource.class)
class DeliveryTracingTest {
    static final AttributeKey<String> DELIVERY_ID = AttributeKey.stringKey("platform.delivery_id");

    @Inject
    InMemorySpanExporter spans;

    static String id(int bytes) {
        byte[] b = new byte[bytes];
        ThreadLocalRandom.current().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /** The spans of one trace once {@code done} holds for them (they reach the exporter every 50 ms). */
    List<SpanData> trace(String traceId, java.util.function.Predicate<List<SpanData>> done) {
        await().atMost(Duration.ofSeconds(10)).until(() -> done.test(of(traceId)));
        return of(traceId);
    }

    List<SpanData> of(String traceId) {
        return spans.getFinishedSpanItems().stream().filter(s -> s.getTraceId().equals(traceId)).toList();
    }

    static List<SpanData> named(List<SpanData> trace, String name) {
        return trace.stream().filter(s -> s.getName().equals(name)).toList();
    }

    static SpanData server(List<SpanData> trace) {
        return trace.stream().filter(s -> s.getKind() == SpanKind.SERVER).findFirst().orElseThrow();
    }

    static boolean has(List<SpanData> trace, String name, int n) {
        return named(trace, name).size() >= n;
    }

    @Test
    void anIntakeCallsTraceGoesOnThroughTheQueueTheAttemptAndTheAccountLookup() {
        String account = account();
        String traceId = id(16);
        String caller = id(8);
        given().header("Authorization", INTERNAL).header("traceparent", "00-" + traceId + "-" + caller + "-01")
                .header("X-Request-Id", "trace-req-1").contentType(ContentType.JSON).body(event(account, 1))
                .post("/internal/v1/events").then().statusCode(202);
        awaitDelivered(account, 1);
        List<SpanData> trace = trace(traceId,
                t -> has(t, DeliveryTracing.QUEUE, 1) && has(t, DeliveryTracing.ATTEMPT, 1) && t.size() >= 4);

        SpanData intake = server(trace);
        assertEquals(caller, intake.getParentSpanId(), "the intake's span continues the caller's");
        SpanData queue = named(trace, DeliveryTracing.QUEUE).get(0);
        SpanData attempt = named(trace, DeliveryTracing.ATTEMPT).get(0);
        assertEquals(intake.getSpanId(), queue.getParentSpanId());
        assertEquals(intake.getSpanId(), attempt.getParentSpanId());
        assertEquals(SpanKind.CLIENT, attempt.getKind());
        assertTrue(queue.getStartEpochNanos() <= queue.getEndEpochNanos());
        assertTrue(queue.getEndEpochNanos() <= attempt.getStartEpochNanos(), "claimed, then attempted");
        String deliveryId = attempt.getAttributes().get(DELIVERY_ID);
        assertEquals(deliveryId, queue.getAttributes().get(DELIVERY_ID));
        assertEquals(Map.of("platform.delivery_id", deliveryId, "platform.account_id", account,
                "platform.request_id", traceId, "platform.delivery.attempt", 1L, "http.request.method", "POST",
                "http.response.status_code", 200L, "platform.delivery.outcome", "delivered"), attributes(attempt));
        assertEquals(StatusCode.UNSET, attempt.getStatus().getStatusCode());

        SpanData lookup = trace.stream().filter(s -> s.getKind() == SpanKind.CLIENT && s != attempt).findFirst()
                .orElseThrow();
        assertEquals(attempt.getSpanId(), lookup.getParentSpanId(), "the account lookup runs in the attempt");
        assertEquals("00-" + traceId + "-" + lookup.getSpanId() + "-01",
                HookPlatformResource.LOOKUP_TRACEPARENTS.get(account), "management-service gets the trace");

        assertNull(HookPlatformResource.received(account).get(0).header("traceparent"),
                "a receiver is outside the platform: no trace context");
        for (SpanData s : List.of(queue, attempt)) {
            s.getAttributes().forEach((k, v) -> assertFalse(String.valueOf(v).contains("quick_replies"),
                    "no span carries the hook's body: " + k));
        }
    }

    @Test
    void aBatchsEventsEachContinueTheirOwnTrace() {
        String account = account();
        String callTrace = id(16);
        String otherTrace = id(16);
        String otherSpan = id(8);
        Map<String, Object> first = event(account, 1);
        first.put("traceparent", "00-" + callTrace + "-" + id(8) + "-01");
        Map<String, Object> second = event(account, 2);
        second.put("traceparent", "00-" + otherTrace + "-" + otherSpan + "-01");
        Map<String, Object> third = event(account, 3);
        third.put("traceparent", "not a traceparent");
        given().header("Authorization", INTERNAL).header("traceparent", "00-" + callTrace + "-" + id(8) + "-01")
                .contentType(ContentType.JSON).body(Map.of("events", List.of(first, second, third)))
                .post("/internal/v1/events/batch").then().statusCode(200);
        awaitDelivered(account, 3);

        List<SpanData> call = trace(callTrace, t -> has(t, DeliveryTracing.ATTEMPT, 2));
        String intake = server(call).getSpanId();
        assertEquals(2, named(call, DeliveryTracing.ATTEMPT).size(), "the call's own event, and the invalid one's");
        named(call, DeliveryTracing.ATTEMPT).forEach(a -> assertEquals(intake, a.getParentSpanId()));
        List<SpanData> other = trace(otherTrace, t -> has(t, DeliveryTracing.ATTEMPT, 1));
        assertEquals(otherSpan, named(other, DeliveryTracing.ATTEMPT).get(0).getParentSpanId(),
                "the second event continues the trace it gave");
        assertEquals(otherSpan, named(other, DeliveryTracing.QUEUE).get(0).getParentSpanId());
        HookPlatformResource.received(account).forEach(r -> assertFalse(
                new String(r.body(), java.nio.charset.StandardCharsets.UTF_8).contains("traceparent"),
                "the trace context is not part of the hook"));
    }

    @Test
    void aRetryIsASecondAttemptSpanAfterAFailedOne() {
        String account = account();
        HookPlatformResource.script(account, new Answer(500, 0, null));
        String traceId = id(16);
        given().header("Authorization", INTERNAL).header("traceparent", "00-" + traceId + "-" + id(8) + "-01")
                .contentType(ContentType.JSON).body(event(account, 1)).post("/internal/v1/events").then()
                .statusCode(202);
        awaitDelivered(account, 1);
        List<SpanData> trace = trace(traceId, t -> has(t, DeliveryTracing.ATTEMPT, 2));
        List<SpanData> attempts = new ArrayList<>(named(trace, DeliveryTracing.ATTEMPT));
        attempts.sort(java.util.Comparator.comparing(SpanData::getStartEpochNanos));
        SpanData failed = attempts.get(0);
        assertEquals(500L, failed.getAttributes().get(AttributeKey.longKey("http.response.status_code")));
        assertEquals("500", failed.getAttributes().get(AttributeKey.stringKey("error.type")));
        assertEquals("pending", failed.getAttributes().get(AttributeKey.stringKey("platform.delivery.outcome")));
        assertEquals(StatusCode.ERROR, failed.getStatus().getStatusCode());
        assertEquals("HTTP 500", failed.getStatus().getDescription());
        assertEquals(2L, attempts.get(1).getAttributes().get(AttributeKey.longKey("platform.delivery.attempt")));
        assertEquals("delivered",
                attempts.get(1).getAttributes().get(AttributeKey.stringKey("platform.delivery.outcome")));
        assertEquals(1, named(trace, DeliveryTracing.QUEUE).size(), "the queue span is the first claim's wait");
    }

    @Test
    void theAttemptsLogLineCarriesTheTraceIdAsItsRequestId() {
        PatternFormatter format = new PatternFormatter(
                ConfigProvider.getConfig().getValue("quarkus.log.console.format", String.class));
        try (LogCapture log = LogCapture.of("com.convplatform.hook.delivery.DeliveryWorker", Level.FINE)) {
            String account = account();
            String traceId = id(16);
            given().header("Authorization", INTERNAL).header("traceparent", "00-" + traceId + "-" + id(8) + "-01")
                    .header("X-Request-Id", "trace-log-1").contentType(ContentType.JSON).body(event(account, 1))
                    .post("/internal/v1/events").then().statusCode(202);
            awaitDelivered(account, 1);
            String attempt = trace(traceId, t -> has(t, DeliveryTracing.ATTEMPT, 1)).stream()
                    .filter(s -> s.getName().equals(DeliveryTracing.ATTEMPT)).findFirst().orElseThrow().getSpanId();
            // each line as the log writes it, with the MDC of the thread that logged it
            List<String> lines = log.records().stream().map(format::format).toList();
            // the request id is the trace id; the intake caller's own X-Request-Id is not carried into the delivery
            String line = lines.stream().filter(l -> l.contains("span_id=" + attempt)).findFirst().orElseThrow();
            assertTrue(line.contains("request_id=" + traceId + " trace_id=" + traceId + " span_id=" + attempt), line);
            assertFalse(lines.stream().anyMatch(l -> l.contains("trace-log-1")), line);
        }
    }

    static Map<String, Object> attributes(SpanData s) {
        Map<String, Object> out = new java.util.HashMap<>();
        s.getAttributes().forEach((k, v) -> out.put(k.getKey(), v));
        return out;
    }
}
