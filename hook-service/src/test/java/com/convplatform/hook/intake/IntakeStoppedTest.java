package com.convplatform.hook.intake;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.convplatform.hook.HookPlatformResource;
import com.convplatform.hook.QueueRows;
import com.convplatform.testsupport.LogCapture;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;

/**
 * Events that arrive once the intake's writer has stopped (this replica is stopping, its HTTP server still finishing)
 * are answered 503 SERVICE_STOPPING with Retry-After, nothing stored: upload-service's hand-off sends them again, to
 * another replica. A replica that stops is expected, so no ERROR is logged. A profile of its own: the stopped writer
 * stays stopped for the rest of this application.
 */
@QuarkusTest
@QuarkusTestResource(HookPlatformResource.class)
@TestProfile(IntakeStoppedTest.Stopping.class)
class IntakeStoppedTest {
    private static final String ACCOUNT = "intake-stopped";

    public static class Stopping implements QuarkusTestProfile {
    }

    @Inject
    IntakeResource intake;

    @Test
    void eventsThatArriveOnceTheWriterStoppedAreAnswered503AndNotStored() {
        intake.stop();
        Map<String, Object> event = Map.of("account_id", ACCOUNT, "user_id", "u1", "conversation_number", 1,
                "message_body", "{\"text\":\"m\",\"type\":\"TEXT\"}", "message_id", 1, "sender", "user", "timestamp",
                Instant.now().toString(), "metadata", Map.of());
        try (LogCapture errors = LogCapture.errors()) {
            for (var request : List.of(Map.entry("/internal/v1/events", (Object) event),
                    Map.entry("/internal/v1/events/batch", (Object) Map.of("events", List.of(event))))) {
                given().header("Authorization", "Bearer test-internal-key").contentType(ContentType.JSON)
                        .body(request.getValue()).post(request.getKey()).then().statusCode(503)
                        .header("Retry-After", "1").contentType(ContentType.JSON)
                        .body("error_code", equalTo("SERVICE_STOPPING"))
                        .body("error_message", equalTo("This replica of the service is stopping; the request"
                                + " changed nothing. Send it again"));
            }
            assertEquals(List.of(), errors.summaries(), "a replica that stops is expected, not an error");
        }
        assertEquals(List.of(), QueueRows.ofAccount(ACCOUNT), "nothing was stored");
    }
}
