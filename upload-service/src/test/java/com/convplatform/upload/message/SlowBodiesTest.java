package com.convplatform.upload.message;

import static com.convplatform.upload.message.UploadFormTest.BOUNDARY;
import static com.convplatform.upload.message.UploadFormTest.body;
import static com.convplatform.upload.message.UploadFormTest.field;
import static com.convplatform.upload.message.UploadFormTest.fileHead;
import static com.convplatform.upload.message.UploadTest.PNG;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

import com.convplatform.load.upload.PlatformStubs;
import com.convplatform.testsupport.LogCapture;
import com.convplatform.testsupport.ManagementInterface;
import com.convplatform.testsupport.StalledBodies;
import com.convplatform.upload.PlatformStubsResource;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * Issue 39: 300 uploads with a valid token whose bodies stop 20 KB in, from ten addresses. The account's share of
 * bodies read at once is taken and the rest are refused at once (429 TOO_MANY_UPLOADS); none holds a worker thread;
 * another tenant's upload meanwhile is answered before any of them reaches its deadline; the clients that give up cost
 * no ERROR and no 500, and the bodies still being read are answered 408 BODY_TIMEOUT at the deadline.
 */
@QuarkusTest
@QuarkusTestResource(PlatformStubsResource.class)
class SlowBodiesTest {
    private static final String OTHER_TENANT = PlatformStubs.token(PlatformStubs.KEY, PlatformStubs.KID, "ES256",
            Map.of("client_id", "client-2", "sub", "client-2", "account_id", "account-2", "business_id", "1002", "jti",
                    "slow-bodies-other"));

    @ConfigProperty(name = "quarkus.http.test-port")
    int port;

    @Test
    void threeHundredStalledUploadsLeaveOtherTenantsAnsweredAndEndAtTheDeadline() throws Exception {
        for (var user : List.of(Map.of("auth_id", "user42", "business_id", "1001"),
                Map.of("auth_id", "user7", "business_id", "1002"))) {
            given().header("Authorization", "Bearer test-operator-key").contentType(ContentType.JSON).body(user)
                    .post("/admin/v1/users");
        }
        upload(); // warm
        double serverErrorsBefore = ManagementInterface.serverErrors(); // others may have answered 5xx on purpose
        byte[] head = body(field("auth_id", "user42"), field("business_id", "1001"), field("message_type", "1"),
                fileHead("slow.png"), PNG);
        try (LogCapture log = LogCapture.errors();
                StalledBodies stalled = StalledBodies.open(port, "/v1.0/log_file_from_user/",
                        Map.of("Authorization", "Bearer " + PlatformStubs.token(), "client-id", "client-1",
                                "Content-Type", "multipart/form-data; boundary=" + BOUNDARY),
                        head, 300, 20_000, 30)) {
            for (int i = 0; i < 5; i++) {
                upload();
            }
            // Answered while every stalled body still waits for its deadline: none needed a worker or a slot that only
            // the deadline frees. An order of events, not a bound on time (a bound of one second failed on a machine
            // under a load of 10-19).
            assertEquals(0, stalled.answeredSoFar(StalledBodies.TIMED_OUT),
                    "another tenant's uploads waited for the stalled bodies' deadline");
            stalled.giveUp(150);
            List<String> answers = stalled.statusLines(20_000);
            assertEquals(150, answers.size());
            answers.forEach(line -> assertTrue(StalledBodies.TIMED_OUT.equals(line)
                    || "HTTP/1.1 429 Too Many Requests".equals(line), "answered " + line));
            assertTrue(answers.contains(StalledBodies.TIMED_OUT), "no body was read until its deadline");
            assertEquals(List.of(), log.summaries(), "clients that gave up or timed out are no error of the service");
        }
        assertEquals(serverErrorsBefore, ManagementInterface.serverErrors(), "no 5xx answered meanwhile");
    }

    private static void upload() {
        given().header("Authorization", "Bearer " + OTHER_TENANT).header("client-id", "client-2")
                .multiPart("auth_id", "user7").multiPart("business_id", "1002").multiPart("message_type", "1")
                .multiPart("file", "fast.png", PNG, "image/png").post("/v1.0/log_file_from_user/").then()
                .statusCode(200);
    }
}
