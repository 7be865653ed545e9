package com.convplatform.console.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.convplatform.api.Contracts;
import com.convplatform.api.hook.HookAdmin;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkus.test.junit.QuarkusTest;

/**
 * The console's side of platform-api's recorded admin views, read with the mapper its REST clients use;
 * hook-service's IntakeContractTest writes the same samples.
 */
@QuarkusTest
class HookAdminContractTest {
    @Inject
    ObjectMapper json;

    @Test
    void theRecordedSummaryReadsAsTheDashboardUsesIt() throws Exception {
        HookAdmin.Summary s = json.readValue(Contracts.sample(Contracts.HOOK_SUMMARY), HookAdmin.Summary.class);
        assertEquals(Map.of("PENDING", 2L, "DELIVERED", 118L, "DEAD", 1L), s.lastHour());
        assertEquals(Instant.parse("2026-11-22T09:58:00Z"), s.oldestUndeliveredAt());
        assertEquals("receiver under maintenance", s.disabledEndpoints().get(0).disabledReason());
        assertEquals(4, s.hours().get(0).failedAttempts());
    }

    @Test
    void theRecordedDeliveryReadsAsItsPageUsesIt() throws Exception {
        HookAdmin.DeliveryDetail d = json.readValue(Contracts.sample(Contracts.HOOK_DELIVERY_DETAIL),
                HookAdmin.DeliveryDetail.class);
        assertEquals(4711, d.messageId());
        assertEquals("4bf92f3577b34da6a3ce929d0e0e4736", d.requestId());
        assertEquals(503, d.attemptHistory().get(0).statusCode());
        assertEquals("c2ln", d.attemptHistory().get(0).signatureHeaders().get("signature"));
        assertEquals(Map.of(), d.attemptHistory().get(1).signatureHeaders());
    }
}
