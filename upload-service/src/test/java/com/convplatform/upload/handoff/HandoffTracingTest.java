package com.convplatform.upload.handoff;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.convplatform.load.upload.PlatformStubs;
import com.convplatform.upload.PlatformStubsResource;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.ExtractableResponse;
import io.restassured.response.Response;

/**
 * One upload's trace over HTTP: the upload's span, its event's wait for hook-service ({@code upload.handoff}, from the
 * outbox to the intake's answer) and the intake call, whose traceparent header (and the event's own, in the batch
 * body) hands the trace on to hook-service; an event that waited out a failure keeps its trace from the outbox row.
 */
@QuarkusTest
@QuarkusTestResource(PlatformStubsResource.class)
class HandoffTracingTest {
    static final byte[] PNG = png();

    @Inject
    InMemorySpanExporter spans;

    static byte[] png() {
        byte[] b = new byte[1500];
        new Random(7).nextBytes(b);
        System.arraycopy(new byte[]{(byte) 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A}, 0, b, 0, 8);
        return b;
    }

    @BeforeEach
    void registeredUser() {
        given().header("Authorization", "Bearer test-operator-key").contentType(ContentType.JSON)
                .body(Map.of("auth_id", "user42", "business_id", "1001")).post("/admin/v1/users");
        PlatformStubs.intakeDown = false;
    }

    @AfterEach
    void intakeUp() {
        PlatformStubs.intakeDown = false;
    }

    static ExtractableResponse<Response> upload(String requestId) {
        return given().header("Authorization", "Bearer " + PlatformStubs.token()).header("client-id", "client-1")
                .header("X-Request-Id", requestId).multiPart("auth_id", "user42").multiPart("business_id", "1001")
                .multiPart("message_type", "1").multiPart("file", "traced.png", PNG, "image/png")
                .multiPart("message_body", "a private message").post("/v1.0/log_file_from_user/").then()
                .statusCode(200).extract();
    }

    /** The event hook-service's stand-in took for this file. */
    static String event(String fileUrl) {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> PlatformStubs.EVENTS.stream().anyMatch(e -> e.contains(fileUrl)));
        return PlatformStubs.EVENTS.stream().filter(e -> e.contains(fileUrl)).findFirst().orElseThrow();
    }

    /** The hand-off spans of a message, once {@code n} have ended (they reach the exporter every 50 ms). */
    List<SpanData> handoffs(long messageId, int n) {
        await().atMost(Duration.ofSeconds(30)).until(() -> handoffs(messageId).size() >= n);
        return handoffs(messageId);
    }

    List<SpanData> handoffs(long messageId) {
        return spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals(HandoffTracing.WAIT))
                .filter(s -> Long.valueOf(messageId).equals(s.getAttributes().get(HandoffTracing.MESSAGE_ID)))
                .sorted(Comparator.comparing(SpanData::getStartEpochNanos)).toList();
    }

    List<SpanData> trace(String traceId) {
        return spans.getFinishedSpanItems().stream().filter(s -> s.getTraceId().equals(traceId)).toList();
    }

    @Test
    void anUploadsTraceGoesToHookServiceWithItsEvent() {
        ExtractableResponse<Response> answer = upload("trace-upload-1");
        long messageId = ((Number) answer.path("message_id")).longValue();
        String event = event(answer.path("file_url"));
        SpanData handoff = handoffs(messageId, 1).get(0);
        String traceId = handoff.getTraceId();
        await().atMost(Duration.ofSeconds(30)).until(() -> trace(traceId).size() >= 3);
        List<SpanData> trace = trace(traceId);

        SpanData upload = trace.stream().filter(s -> s.getKind() == SpanKind.SERVER).findFirst().orElseThrow();
        assertEquals("POST /v1.0/log_file_from_user", upload.getName());
        assertEquals(upload.getSpanId(), handoff.getParentSpanId(), "the hand-off continues the upload's trace");
        assertTrue(handoff.getStartEpochNanos() >= upload.getStartEpochNanos()
                && handoff.getStartEpochNanos() <= upload.getEndEpochNanos(), "it starts when the event is written");
        assertEquals(Map.of("platform.outbox_id", handoff.getAttributes().get(HandoffTracing.OUTBOX_ID),
                "platform.message_id", messageId, "platform.account_id", "account-1", "platform.request_id",
                traceId, "platform.handoff.attempt", 1L, "platform.handoff.batch_size", 1L),
                attributes(handoff));
        assertEquals(StatusCode.UNSET, handoff.getStatus().getStatusCode());

        SpanData call = trace.stream().filter(s -> s.getKind() == SpanKind.CLIENT).findFirst().orElseThrow();
        assertEquals(handoff.getSpanId(), call.getParentSpanId(), "the intake call runs in the hand-off");
        assertEquals("00-" + traceId + "-" + call.getSpanId() + "-01", PlatformStubs.EVENT_CALL_TRACEPARENTS.get(event),
                "the call's traceparent header carries the upload's trace");
        assertEquals("00-" + traceId + "-" + handoff.getSpanId() + "-01", PlatformStubs.EVENT_TRACEPARENTS.get(event),
                "and so does the event in the batch body");
        for (SpanData s : trace) {
            s.getAttributes().forEach((k, v) -> assertFalse(String.valueOf(v).contains("a private message"),
                    "no span carries the message: " + s.getName() + " " + k));
        }
    }

    @Test
    void anEventThatWaitedOutAFailureKeepsItsTraceFromTheOutbox() {
        PlatformStubs.intakeDown = true;
        ExtractableResponse<Response> answer = upload("trace-upload-2");
        long messageId = ((Number) answer.path("message_id")).longValue();
        SpanData failed = handoffs(messageId, 1).get(0);
        assertEquals(StatusCode.ERROR, failed.getStatus().getStatusCode());
        assertEquals("not_accepted", failed.getAttributes().get(AttributeKey.stringKey("error.type")));
        PlatformStubs.intakeDown = false;
        event(answer.path("file_url"));
        await().atMost(Duration.ofSeconds(30)).until(() -> handoffs(messageId).stream()
                .anyMatch(s -> s.getStatus().getStatusCode() == StatusCode.UNSET));
        SpanData sent = handoffs(messageId).stream().filter(s -> s.getStatus().getStatusCode() == StatusCode.UNSET)
                .findFirst().orElseThrow();
        assertEquals(failed.getTraceId(), sent.getTraceId(), "the poll restored the trace stored with the event");
        assertEquals(failed.getParentSpanId(), sent.getParentSpanId());
        assertEquals(failed.getStartEpochNanos() / 1_000_000, sent.getStartEpochNanos() / 1_000_000,
                "both wait from when the event was written");
        assertTrue(sent.getAttributes().get(HandoffTracing.ATTEMPT) >= 2, "a later post of the same event");
    }

    static Map<String, Object> attributes(SpanData s) {
        Map<String, Object> out = new java.util.HashMap<>();
        s.getAttributes().forEach((k, v) -> out.put(k.getKey(), v));
        return out;
    }
}
