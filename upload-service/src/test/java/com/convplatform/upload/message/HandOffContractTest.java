package com.convplatform.upload.message;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import com.convplatform.api.Contracts;
import com.convplatform.api.intake.IntakeBatch;
import com.convplatform.api.intake.IntakeEvent;
import com.convplatform.api.intake.IntakeResult;
import com.convplatform.upload.auth.TokenIdentityProvider.Caller;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * upload-service's side of platform-api's recorded intake contract: the event an upload makes is, byte for byte, the
 * recorded one (as stored in the outbox and as posted in a batch), and hook-service's recorded answer reads as meant.
 * hook-service's IntakeContractTest binds the same samples.
 */
class HandOffContractTest {
    private static final String FILE_ID = "0193a5b2c4d6e8f00112233445566778899aabbccdd";
    private final ObjectMapper json = new ObjectMapper();

    private static IntakeEvent recordedUpload() {
        Caller caller = new Caller("client-1", "0b7c6f1e-3a52-4d0e-9a7e-2f1c9d4e8a10", "1001");
        UploadService.ToRecord upload = new UploadService.ToRecord(caller, "u42", "1001", FileTypes.IMAGE,
                "see attached", FILE_ID, "photo.png", "image/png", 2048, "4bf92f3577b34da6a3ce929d0e0e4736", null,
                "https://files.example.com/files/" + FILE_ID + "/photo.png");
        return UploadService.event(new ObjectMapper(), upload, 4711, Instant.parse("2026-11-22T10:00:00.123Z"));
    }

    @Test
    void theStoredAndPostedEventIsTheRecordedOne() throws Exception {
        IntakeEvent event = recordedUpload();
        assertEquals(Contracts.sample(Contracts.INTAKE_EVENT), json.writeValueAsString(event));
        IntakeEvent polled = json.readValue(Contracts.sample(Contracts.INTAKE_EVENT), IntakeEvent.class);
        assertEquals(Contracts.sample(Contracts.INTAKE_EVENT), json.writeValueAsString(polled)); // the poll's path
        IntakeBatch<IntakeEvent> batch = new IntakeBatch<>(List.of(
                event.withBatchFields(event.requestId(), "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")));
        assertEquals(Contracts.sample(Contracts.INTAKE_BATCH), json.writeValueAsString(batch));
    }

    @Test
    void hookServicesRecordedAnswerReadsAsMeant() throws Exception {
        List<IntakeResult> results = json
                .readValue(Contracts.sample(Contracts.INTAKE_RESULTS), IntakeResult.Results.class).results();
        assertTrue(results.get(0).accepted());
        assertTrue(results.get(1).accepted());
        assertFalse(results.get(2).accepted());
        assertEquals("MISSING_FIELD", results.get(2).errorCode());
    }
}
