package com.convplatform.upload.message;

import static com.convplatform.upload.message.UploadTest.PATH;
import static com.convplatform.upload.message.UploadTest.PNG;
import static com.convplatform.upload.message.UploadTest.authed;
import static com.convplatform.upload.message.UploadTest.storedFiles;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.anyOf;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.convplatform.testsupport.LogCapture;
import com.convplatform.upload.PlatformStubsResource;
import com.convplatform.upload.quota.UploadQuota;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;

/**
 * Uploads that arrive while this replica is stopping (its writers closed, its HTTP server still finishing) are answered
 * 503 SERVICE_STOPPING with Retry-After, never left without an answer: one whose record's writer has stopped after its
 * file was stored (the file is removed again), and one whose quota's writer has stopped (refused before its body is
 * read). A replica that stops is expected, so no ERROR is logged. A profile of its own: the writers stay stopped for
 * the rest of this application.
 */
@QuarkusTest
@QuarkusTestResource(PlatformStubsResource.class)
@TestProfile(StoppingReplicaTest.Stopping.class)
class StoppingReplicaTest {
    public static class Stopping implements QuarkusTestProfile {
    }

    @Inject
    UploadService uploads;

    @Inject
    UploadQuota quota;

    @Test
    void uploadsThatMeetAStoppedWriterAreAnswered503AndLeaveNothing() throws Exception {
        given().header("Authorization", "Bearer test-operator-key").contentType(ContentType.JSON)
                .body(Map.of("auth_id", "user42", "business_id", "1001")).post("/admin/v1/users").then()
                .statusCode(anyOf(equalTo(201), equalTo(409))); // other test classes may have registered the user
        long before = storedFiles();
        try (LogCapture errors = LogCapture.errors()) {
            uploads.stopWriter();
            refused();
            assertEquals(before, storedFiles(), "the file stored before its record was refused is removed");
            quota.stop();
            refused();
            assertEquals(before, storedFiles());
            assertEquals(List.of(), errors.summaries(), "a replica that stops is expected, not an error");
        }
    }

    private static void refused() {
        authed().multiPart("auth_id", "user42").multiPart("business_id", "1001").multiPart("message_type", "1")
                .multiPart("file", "a.png", PNG, "image/png").post(PATH).then().statusCode(503)
                .header("Retry-After", "1").contentType(ContentType.JSON)
                .body("error_code", equalTo("SERVICE_STOPPING"))
                .body("error_message", equalTo("This replica of the service is stopping; the request changed nothing."
                        + " Send it again"));
    }
}
