package com.convplatform.upload.message;

import static com.convplatform.upload.message.UploadFormTest.BOUNDARY;
import static com.convplatform.upload.message.UploadFormTest.body;
import static com.convplatform.upload.message.UploadFormTest.exchange;
import static com.convplatform.upload.message.UploadFormTest.field;
import static com.convplatform.upload.message.UploadFormTest.fileHead;
import static com.convplatform.upload.message.UploadFormTest.incomingParts;
import static com.convplatform.upload.message.UploadTest.PNG;
import static com.convplatform.upload.message.UploadTest.authed;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.convplatform.load.upload.PlatformStubs;
import com.convplatform.upload.PlatformStubsResource;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;

/**
 * Slow bodies cannot pile up (issue 22): with upload.max-concurrent-bodies at 1 here, one body still arriving makes
 * the next upload a 503 TOO_MANY_UPLOADS with Retry-After, answered before its body is read; once the first has gone,
 * uploads are read again.
 */
@QuarkusTest
@TestProfile(ConcurrentBodiesTest.OneAtATime.class)
@QuarkusTestResource(PlatformStubsResource.class)
class ConcurrentBodiesTest {
    public static class OneAtATime implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("upload.max-concurrent-bodies", "1");
        }
    }

    @Test
    void aBodyOverTheLimitIsRefusedBeforeItIsReadAndTheSlotComesBack() throws Exception {
        given().header("Authorization", "Bearer test-operator-key").contentType(ContentType.JSON)
                .body(Map.of("auth_id", "user42", "business_id", "1001")).post("/admin/v1/users");
        byte[] partial = body(field("auth_id", "user42"), field("business_id", "1001"), field("message_type", "1"),
                fileHead("slow.png"), PNG);
        try (Socket slow = new Socket("127.0.0.1", RestAssured.port)) {
            OutputStream out = slow.getOutputStream();
            out.write(body("POST /v1.0/log_file_from_user/ HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                    + PlatformStubs.token() + "\r\nclient-id: client-1\r\nContent-Type: multipart/form-data; boundary="
                    + BOUNDARY + "\r\nContent-Length: " + (partial.length + 100_000) + "\r\n\r\n", partial));
            out.flush();
            await().atMost(Duration.ofSeconds(10)).until(() -> incomingParts() == 1); // its body is being read
            try (Socket next = new Socket("127.0.0.1", RestAssured.port)) {
                next.setSoTimeout(5_000);
                long start = System.nanoTime();
                String answer = exchange(next, UploadFormTest.request(PlatformStubs.token(),
                        body(field("auth_id", "user42"), field("business_id", "1001"), field("message_type", "1"),
                                fileHead("second.png"), PNG, "\r\n", "--" + BOUNDARY + "--\r\n")));
                long ms = (System.nanoTime() - start) / 1_000_000;
                assertTrue(answer.startsWith("HTTP/1.1 503"), answer);
                assertTrue(answer.contains("\"error_code\":\"TOO_MANY_UPLOADS\""), answer);
                assertTrue(answer.toLowerCase(Locale.ROOT).contains("retry-after: 1"), answer);
                assertTrue(ms < 2_000, "answered after " + ms + " ms");
            }
        }
        // the slow one went away: its slot is free again
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> authed().multiPart("auth_id", "user42")
                .multiPart("business_id", "1001").multiPart("message_type", "1")
                .multiPart("file", "after.png", PNG, "image/png").post("/v1.0/log_file_from_user/").then()
                .statusCode(200));
    }
}
