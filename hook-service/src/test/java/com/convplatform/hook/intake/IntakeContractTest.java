package com.convplatform.hook.intake;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import jakarta.inject.Inject;
import jakarta.validation.Validator;

import org.junit.jupiter.api.Test;

import com.convplatform.api.Contracts;
import com.convplatform.api.hook.HookAdmin;
import com.convplatform.api.intake.IntakeBatch;
import com.convplatform.api.intake.IntakeEvent;
import com.convplatform.api.intake.IntakeResult;
import com.convplatform.hook.HookPlatformResource;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;

/**
 * hook-service's side of platform-api's recorded contracts, with this service's own mapper (naming, strict types): the
 * intake binds upload-service's batch and stores the hook body, answers in the recorded shape, and writes the admin
 * views the console reads. upload-service's and the console's tests check their sides against the same samples.
 */
@QuarkusTest
@QuarkusTestResource(HookPlatformResource.class)
class IntakeContractTest {
    @Inject
    ObjectMapper json;
    @Inject
    Validator validator;

    @Test
    void theBatchOfUploadServiceIsBoundValidAndStoredAsTheHookBody() throws Exception {
        IntakeBatch<JsonNode> batch = json.readValue(Contracts.sample(Contracts.INTAKE_BATCH),
                new TypeReference<IntakeBatch<JsonNode>>() {
                });
        assertEquals(List.of(), List.copyOf(validator.validate(batch)));
        IntakeEvent event = json.treeToValue(batch.events().get(0), IntakeEvent.class);
        assertEquals(List.of(), List.copyOf(validator.validate(event)));
        assertEquals("4bf92f3577b34da6a3ce929d0e0e4736", event.requestId());
        assertEquals("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", event.traceparentText());
        assertEquals(Contracts.sample(Contracts.HOOK_BODY), IntakeResource.hookBody(json).writeValueAsString(event));
    }

    @Test
    void theBatchIsAnsweredInTheRecordedShape() throws Exception {
        IntakeResult.Results results = new IntakeResult.Results(List.of(
                IntakeResult.stored("019ab3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b", false),
                IntakeResult.stored("019ab3c4-5d6e-7f80-9a1b-2c3d4e5f6a7c", true),
                IntakeResult.refused("MISSING_FIELD", "'user_id' is required and must be a non-empty string")));
        assertEquals(Contracts.sample(Contracts.INTAKE_RESULTS), json.writeValueAsString(results));
    }

    @Test
    void theAdminViewsAreWrittenAsRecorded() throws Exception {
        for (var view : List.of(new TypeReference<HookAdmin.Summary>() {
        }, new TypeReference<HookAdmin.DeliveryDetail>() {
        })) {
            String recorded = Contracts.sample(
                    view.getType() == HookAdmin.Summary.class
                            ? Contracts.HOOK_SUMMARY
                            : Contracts.HOOK_DELIVERY_DETAIL);
            assertEquals(recorded, json.writeValueAsString(json.readValue(recorded, view)));
        }
    }
}
