package com.convplatform.management.tracing;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.convplatform.management.ClientPkiResource;
import com.convplatform.management.Fixtures;

import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;

/** hook-service's account lookup continues the caller's trace: its server span is the child of the caller's span. */
@QuarkusTest
@QuarkusTestResource(ClientPkiResource.class)
class TraceContinuationTest {
    @Inject
    InMemorySpanExporter spans;

    @Test
    void theAccountLookupContinuesTheCallersTrace() {
        String id = Fixtures.account("t" + UUID.randomUUID().toString().substring(0, 8) + ".example.org");
        String traceId = UUID.randomUUID().toString().replace("-", "");
        String caller = traceId.substring(0, 16);
        given().header("Authorization", "Bearer test-internal-key")
                .header("traceparent", "00-" + traceId + "-" + caller + "-01").get("/internal/v1/accounts/" + id)
                .then().statusCode(200);
        await().atMost(Duration.ofSeconds(30)).until(() -> !server(traceId).isEmpty());
        SpanData lookup = server(traceId).get(0);
        assertEquals(caller, lookup.getParentSpanId());
        assertEquals("GET /internal/v1/accounts/{accountId}", lookup.getName());
    }

    List<SpanData> server(String traceId) {
        return spans.getFinishedSpanItems().stream()
                .filter(s -> s.getTraceId().equals(traceId) && s.getKind() == SpanKind.SERVER).toList();
    }
}
