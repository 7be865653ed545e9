package com.convplatform.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

import com.convplatform.api.hook.HookAdmin;
import com.convplatform.api.hook.HookErasure;
import com.convplatform.api.intake.FileMessage;
import com.convplatform.api.intake.IntakeBatch;
import com.convplatform.api.intake.IntakeEvent;
import com.convplatform.api.intake.IntakeResult;
import com.convplatform.api.management.ManagementInternal;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/**
 * Each recorded contract reads into its record and writes back to the same bytes, with a mapper that has none of the
 * services' settings: the records carry their JSON names and order themselves.
 */
class ContractSamplesTest {
    private final ObjectMapper json = new ObjectMapper().registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

    @Test
    void everyContractRoundTripsToItsRecordedBytes() throws Exception {
        roundTrip(Contracts.INTAKE_EVENT, new TypeReference<IntakeEvent>() {
        });
        roundTrip(Contracts.INTAKE_BATCH, new TypeReference<IntakeBatch<IntakeEvent>>() {
        });
        roundTrip(Contracts.INTAKE_RESULTS, new TypeReference<IntakeResult.Results>() {
        });
        roundTrip(Contracts.HOOK_SUMMARY, new TypeReference<HookAdmin.Summary>() {
        });
        roundTrip(Contracts.HOOK_DELIVERY_DETAIL, new TypeReference<HookAdmin.DeliveryDetail>() {
        });
        roundTrip(Contracts.HOOK_ERASURE, new TypeReference<HookErasure.Erasure>() {
        });
        roundTrip(Contracts.HOOK_ERASED, new TypeReference<HookErasure.Erased>() {
        });
        roundTrip(Contracts.MANAGEMENT_ACCOUNT, new TypeReference<ManagementInternal.Account>() {
        });
        roundTrip(Contracts.MANAGEMENT_REVOCATIONS, new TypeReference<ManagementInternal.RevocationList>() {
        });
    }

    @Test
    void theHookBodyIsTheEventWithoutItsRoutingFields() throws Exception {
        IntakeEvent batched = json.readValue(Contracts.sample(Contracts.INTAKE_BATCH),
                new TypeReference<IntakeBatch<IntakeEvent>>() {
                }).events().get(0);
        assertEquals("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", batched.traceparentText());
        assertEquals(Contracts.sample(Contracts.INTAKE_EVENT),
                json.writeValueAsString(batched.withBatchFields(batched.requestId(), null)));
        assertEquals(List.of("request_id", "traceparent"), List.of(IntakeEvent.BATCH_ONLY));
    }

    @Test
    void aFileEventsBodyAndMetadataReadIntoTheirTypesAndBack() throws Exception {
        IntakeEvent event = json.readValue(Contracts.sample(Contracts.INTAKE_EVENT), IntakeEvent.class);
        FileMessage.Body body = json.readValue(event.messageBody(), FileMessage.Body.class);
        assertEquals(FileMessage.IMAGE, body.type());
        assertEquals("photo.png", body.data().fileName());
        assertEquals(event.messageBody(), json.writeValueAsString(body));
        FileMessage.Metadata metadata = json.convertValue(event.metadata(), FileMessage.Metadata.class);
        assertEquals(1, metadata.messageType());
        assertEquals(body.data().fileUrl(), metadata.fileUrl());
        assertEquals(json.writeValueAsString(event.metadata()), json.writeValueAsString(metadata));
    }

    @Test
    void aShapeDiffersByAFieldsNameOrTypeNotByItsValue() {
        String recorded = Contracts.sample(Contracts.MANAGEMENT_ACCOUNT);
        assertEquals(List.of(), Contracts.shapeDifferences(recorded,
                recorded.replace("\"disabled_at\":null", "\"disabled_at\":\"2026-11-29T10:00:00Z\"")));
        assertEquals(List.of(".require_sha256: STRING (recorded BOOLEAN)"),
                Contracts.shapeDifferences(recorded, recorded.replace(":false", ":\"false\"")));
        assertEquals(List.of(".webhook_url: missing (recorded STRING)", ".webhookUrl: not recorded"),
                Contracts.shapeDifferences(recorded, recorded.replace("webhook_url", "webhookUrl")));
    }

    private <T> void roundTrip(String name, TypeReference<T> type) throws Exception {
        String recorded = Contracts.sample(name);
        assertEquals(recorded, json.writeValueAsString(json.readValue(recorded, type)), name);
    }
}
