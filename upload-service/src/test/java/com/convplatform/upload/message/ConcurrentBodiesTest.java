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
import java.util.List;
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
 * Slow bodies cannot pile up, and one tenant's cannot stall another's: with upload.max-concurrent-bodies at 2 and
 * upload.max-concurrent-bodies-per-account at 1 here, a body still arriving for account-1 makes account-1's next upload
 * a 429 TOO_MANY_UPLOADS answered before its body is read, while account-2's upload goes through; once a slow body for
 * each of the two is arriving, every upload is refused the same way, naming the service's limit; once they have gone,
 * uploads are read again.
 */
@QuarkusTest
@TestProfile(ConcurrentBodiesTest.Limits.class)
@QuarkusTestResource(PlatformStubsResource.class)
class ConcurrentBodiesTest {
    public static class Limits implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("upload.max-concurrent-bodies", "2", "upload.max-concurrent-bodies-per-account", "1");
        }
    }

    private static final String OTHER_TENANT = PlatformStubs.token(PlatformStubs.KEY, PlatformStubs.KID, "ES256",
            Map.of("client_id", "client-2", "sub", "client-2", "account_id", "account-2", "business_id", "1002", "jti",
                    "t2"));
    private static final byte[] PARTIAL = body(field("auth_id", "user42"), field("business_id", "1001"),
            field("message_type", "1"), fileHead("slow.png"), PNG);

    @Test
    void slowBodiesAreCappedPerAccountAndInAllAndTheSlotsComeBack() throws Exception {
        for (var user : List.of(Map.of("auth_id", "user42", "business_id", "1001"),
                Map.of("auth_id", "user7", "business_id", "1002"))) {
            given().header("Authorization", "Bearer test-operator-key").contentType(ContentType.JSON).body(user)
                    .post("/admin/v1/users");
        }
        try (Socket slow = slowBody(PlatformStubs.token(), "client-1")) {
            await().atMost(Duration.ofSeconds(30)).until(() -> incomingParts() == 1); // its body is being read
            assertRefused(PlatformStubs.token(), "client-1", "Your account is sending as many uploads at once as it"
                    + " may (1)");
            // another tenant's upload is not stalled by account-1's slow one
            given().header("Authorization", "Bearer " + OTHER_TENANT).header("client-id", "client-2")
                    .multiPart("auth_id", "user7").multiPart("business_id", "1002").multiPart("message_type", "1")
                    .multiPart("file", "fast.png", PNG, "image/png").post("/v1.0/log_file_from_user/").then()
                    .statusCode(200);
            try (Socket slowToo = slowBody(OTHER_TENANT, "client-2")) {
                await().atMost(Duration.ofSeconds(30)).until(() -> incomingParts() == 2);
                String third = PlatformStubs.token(PlatformStubs.KEY, PlatformStubs.KID, "ES256", Map.of("client_id",
                        "client-3", "sub", "client-3", "account_id", "account-3", "business_id", "1003", "jti", "t3"));
                assertRefused(third, "client-3", "The service is reading as many uploads as it takes at once (2)");
            }
        }
        // the slow ones went away: their slots are free again
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> authed().multiPart("auth_id", "user42")
                .multiPart("business_id", "1001").multiPart("message_type", "1")
                .multiPart("file", "after.png", PNG, "image/png").post("/v1.0/log_file_from_user/").then()
                .statusCode(200));
    }

    /**
     * A client that sends an upload's head and goes away at once, while its token is still being checked, leaves no
     * slot taken: with one slot per account here, a single lost slot would refuse every later upload of account-1.
     */
    @Test
    void anUploadAbandonedWhileItsTokenIsCheckedLeavesNoSlotTaken() throws Exception {
        given().header("Authorization", "Bearer test-operator-key").contentType(ContentType.JSON)
                .body(Map.of("auth_id", "user42", "business_id", "1001")).post("/admin/v1/users");
        for (int i = 0; i < 40; i++) {
            String fresh = PlatformStubs.token(PlatformStubs.KEY, PlatformStubs.KID, "ES256", Map.of("jti",
                    "abandoned-" + i + "-" + System.nanoTime())); // not cached: checked in full
            try (Socket gone = new Socket("127.0.0.1", RestAssured.port)) {
                gone.setSoLinger(true, 0); // reset at close, not a polite end
                gone.getOutputStream().write(body("POST /v1.0/log_file_from_user/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        + "Authorization: Bearer " + fresh + "\r\nclient-id: client-1\r\nContent-Type:"
                        + " multipart/form-data; boundary=" + BOUNDARY + "\r\nContent-Length: 100000\r\n\r\n"));
                gone.getOutputStream().flush();
            }
        }
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> authed().multiPart("auth_id", "user42")
                .multiPart("business_id", "1001").multiPart("message_type", "1")
                .multiPart("file", "after-abandoned.png", PNG, "image/png").post("/v1.0/log_file_from_user/").then()
                .statusCode(200));
    }

    /** Sends an upload's head and the first bytes of its file, and no more. */
    private static Socket slowBody(String token, String clientId) throws Exception {
        Socket slow = new Socket("127.0.0.1", RestAssured.port);
        OutputStream out = slow.getOutputStream();
        out.write(body("POST /v1.0/log_file_from_user/ HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token
                + "\r\nclient-id: " + clientId + "\r\nContent-Type: multipart/form-data; boundary=" + BOUNDARY
                + "\r\nContent-Length: " + (PARTIAL.length + 100_000) + "\r\n\r\n", PARTIAL));
        out.flush();
        return slow;
    }

    /** The upload is answered TOO_MANY_UPLOADS (429 or 503) with Retry-After and the reason, before its body is read. */
    private static void assertRefused(String token, String clientId, String reason) throws Exception {
        try (Socket next = new Socket("127.0.0.1", RestAssured.port)) {
            next.setSoTimeout(30_000);
            String answer = exchange(next, UploadFormTest.request(token, clientId, body(field("auth_id", "user42"),
                    field("business_id", "1001"), field("message_type", "1"), fileHead("second.png"), PNG, "\r\n",
                    "--" + BOUNDARY + "--\r\n")));
            assertTrue(answer.startsWith(reason.startsWith("Your account") ? "HTTP/1.1 429" : "HTTP/1.1 503"), answer);
            assertTrue(answer.contains("\"error_code\":\"TOO_MANY_UPLOADS\""), answer);
            assertTrue(answer.contains(reason), answer);
            assertTrue(answer.toLowerCase(Locale.ROOT).contains("retry-after: 1"), answer);
        }
    }
}
