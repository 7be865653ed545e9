package com.convplatform.upload.message;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.matchesPattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.convplatform.load.upload.PlatformStubs;
import com.convplatform.upload.PlatformStubsResource;
import com.convplatform.upload.handoff.OutboxRows;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.DisabledOnIntegrationTest;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;
import io.restassured.specification.RequestSpecification;

/** The upload endpoint over HTTP: success, download, hand-off, and every refusal with its status and body. */
@QuarkusTest
@QuarkusTestResource(PlatformStubsResource.class)
public class UploadTest {
    public static final String PATH = "/v1.0/log_file_from_user/";
    public static final byte[] PNG = withHead(new byte[]{(byte) 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A}, 2000);
    static final byte[] JPEG = withHead(new byte[]{(byte) 0xFF, (byte) 0xD8, (byte) 0xFF, (byte) 0xE0}, 3000);
    static final byte[] ELF = withHead(new byte[]{0x7F, 'E', 'L', 'F'}, 500);

    @BeforeEach
    void registeredUser() {
        given().header("Authorization", "Bearer test-operator-key").contentType(ContentType.JSON)
                .body(Map.of("auth_id", "user42", "business_id", "1001")).post("/admin/v1/users");
        PlatformStubs.intakeDown = false;
        PlatformStubs.noBatchIntake = false;
        PlatformStubs.batchBodyLimit = 0;
        PlatformStubs.REFUSED.clear();
    }

    static byte[] withHead(byte[] head, int size) {
        byte[] b = new byte[size];
        new Random(size).nextBytes(b);
        System.arraycopy(head, 0, b, 0, head.length);
        return b;
    }

    static byte[] docx() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
            zip.putNextEntry(new ZipEntry("[Content_Types].xml"));
            zip.write("<Types/>".getBytes());
            zip.putNextEntry(new ZipEntry("word/document.xml"));
            zip.write("<w:document/>".getBytes());
        }
        return bytes.toByteArray();
    }

    public static RequestSpecification authed() {
        return given().header("Authorization", "Bearer " + PlatformStubs.token()).header("client-id", "client-1");
    }

    static ValidatableResponse upload(RequestSpecification spec, String type, String name, byte[] content,
            String mime) {
        return spec.multiPart("auth_id", "user42").multiPart("business_id", "1001").multiPart("message_type", type)
                .multiPart("file", name, content, mime).multiPart("message_body", "see attached").post(PATH).then();
    }

    static void refused(ValidatableResponse r, int status, String code, String text) {
        r.statusCode(status).contentType(ContentType.JSON).body("error_code", equalTo(code))
                .body("error_message", containsString(text));
    }

    public static long storedFiles() throws IOException {
        return filesIn(Paths.get("target/test-data/files"));
    }

    /** How many entries {@code dir} holds (0 if it does not exist). */
    static long filesIn(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return 0;
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.count();
        }
    }

    @Test
    void anImageIsStoredLoggedServedByteForByteAndHandedOn() throws Exception {
        String url = upload(authed(), "1", "holiday photo.png", PNG, "image/png").statusCode(200)
                .body("message_type", equalTo(1)).body("message_body", equalTo("see attached"))
                .body("created_at", matchesPattern("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z"))
                .body("message_id", org.hamcrest.Matchers.greaterThan(0))
                .body("file_url",
                        matchesPattern("https://files\\.platform\\.example/files/[0-9a-f]{44}/holiday_photo\\.png"))
                .extract().path("file_url");
        String local = url.substring("https://files.platform.example".length());
        byte[] served = given().get(local).then().statusCode(200).contentType("image/png")
                .header("X-Content-Type-Options", "nosniff")
                .header("Content-Disposition", "attachment; filename=\"holiday_photo.png\"").extract().asByteArray();
        assertArrayEquals(PNG, served);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> PlatformStubs.EVENTS.stream().anyMatch(e -> e.contains(url)));
        JsonNode event = new ObjectMapper()
                .readTree(PlatformStubs.EVENTS.stream().filter(e -> e.contains(url)).findFirst().orElseThrow());
        assertEquals("account-1", event.get("account_id").asText());
        assertEquals("user42", event.get("user_id").asText());
        assertEquals("user", event.get("sender").asText());
        JsonNode body = new ObjectMapper().readTree(event.get("message_body").asText());
        assertEquals("IMAGE", body.get("type").asText());
        assertEquals(url, body.get("data").get("file_url").asText());
    }

    @Test
    void theRequestIdIsTheUploadsTraceIdAnsweredAndHandedOnAndACallersOwnIdIsNotCarried() throws Exception {
        String traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
        String url = upload(authed().header("X-Request-Id", "upload-req-42")
                .header("traceparent", "00-" + traceId + "-00f067aa0ba902b7-01"), "1", "id.png", PNG, "image/png")
                .statusCode(200).header("X-Request-Id", traceId).extract().path("file_url");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> PlatformStubs.EVENTS.stream().anyMatch(e -> e.contains(url)));
        String event = PlatformStubs.EVENTS.stream().filter(e -> e.contains(url)).findFirst().orElseThrow();
        assertEquals(traceId, PlatformStubs.EVENT_REQUEST_IDS.get(event), "the event's request id is the trace id");
        assertTrue(PlatformStubs.EVENT_TRACEPARENTS.get(event).startsWith("00-" + traceId + "-"),
                "and its traceparent continues that trace");
        assertFalse(PlatformStubs.EVENTS.stream().anyMatch(e -> e.contains("upload-req-42")),
                "the caller's own id is logged, not carried on");

        // without a trace context from the caller: a new trace, whose id answers; an unsafe caller id changes nothing
        String answered = upload(authed().header("X-Request-Id", "not safe <script>"), "1", "id2.png", PNG,
                "image/png").statusCode(200).header("X-Request-Id", matchesPattern("[0-9a-f]{32}")).extract()
                .header("X-Request-Id");
        assertNotEquals(traceId, answered);
    }

    @Test
    void uploadsAtOnceAreEachLoggedWithTheirOwnMessageAndRequestIdAndHandedOn() throws Exception {
        // 24 callers at once: their messages share transactions; each must still get its own message and hand-off.
        java.util.concurrent.ExecutorService callers = java.util.concurrent.Executors.newFixedThreadPool(24);
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        List<java.util.concurrent.Future<io.restassured.response.Response>> answers = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 24; i++) {
                String requestId = "burst-" + i;
                String traceparent = String.format("00-%032x-00f067aa0ba902b7-01", 0xb0000L + i);
                answers.add(callers.submit(() -> {
                    go.await();
                    return authed().header("traceparent", traceparent).multiPart("auth_id", "user42")
                            .multiPart("business_id", "1001").multiPart("message_type", "1")
                            .multiPart("file", requestId + ".png", PNG, "image/png")
                            .multiPart("message_body", requestId).post(PATH);
                }));
            }
            go.countDown();
            java.util.Set<Long> messageIds = new java.util.HashSet<>();
            for (int i = 0; i < 24; i++) {
                io.restassured.response.Response r = answers.get(i).get(30, java.util.concurrent.TimeUnit.SECONDS);
                assertEquals(200, r.statusCode(), r.asString());
                assertEquals("burst-" + i, r.jsonPath().getString("message_body"));
                assertTrue(r.jsonPath().getString("file_url").endsWith("/burst-" + i + ".png"));
                messageIds.add(r.jsonPath().getLong("message_id"));
                String url = r.jsonPath().getString("file_url");
                String requestId = String.format("%032x", 0xb0000L + i);
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> PlatformStubs.EVENTS.stream().anyMatch(e -> e.contains(url)));
                String event = PlatformStubs.EVENTS.stream().filter(e -> e.contains(url)).findFirst().orElseThrow();
                assertEquals(requestId, PlatformStubs.EVENT_REQUEST_IDS.get(event));
            }
            assertEquals(24, messageIds.size(), "distinct message ids");
        } finally {
            callers.shutdownNow();
        }
    }

    @Test
    void documentsOfEachKindAreAccepted() throws Exception {
        upload(authed(), "52", "report.docx", docx(), "application/octet-stream").statusCode(200)
                .body("message_type", equalTo(52));
        upload(authed(), "52", "numbers.csv", "a,b\n1,2\n".getBytes(), "text/csv").statusCode(200);
        upload(authed(), "1", "cat.JPG", JPEG, "image/jpeg").statusCode(200);
    }

    @Test
    void authorizationIsRequiredAndChecked() {
        long now = Instant.now().getEpochSecond();
        String[][] cases = {
                {null, "client-1"},
                {"Bearer garbage", "client-1"},
                {"Bearer " + PlatformStubs.token(PlatformStubs.KEY, PlatformStubs.KID, "ES256",
                        Map.of("exp", now - 120)), "client-1"},
                {"Bearer " + PlatformStubs.token(PlatformStubs.KEY, PlatformStubs.KID, "ES256",
                        Map.of("aud", "someone-else")), "client-1"},
                {"Bearer " + PlatformStubs.token(PlatformStubs.KEY, PlatformStubs.KID, "ES256",
                        Map.of("iss", "someone-else")), "client-1"},
                {"Bearer " + PlatformStubs.token(PlatformStubs.OTHER_KEY, PlatformStubs.KID, "ES256", Map.of()),
                        "client-1"},
                {"Bearer " + PlatformStubs.token(PlatformStubs.OTHER_KEY, "unknown-kid", "ES256", Map.of()),
                        "client-1"},
                {"Bearer " + PlatformStubs.token(PlatformStubs.KEY, PlatformStubs.KID, "none", Map.of()),
                        "client-1"},
                {"Bearer " + PlatformStubs.token(PlatformStubs.KEY, PlatformStubs.KID, "HS256", Map.of()),
                        "client-1"},
                {"Bearer " + PlatformStubs.token(), "client-2"},
                {"Bearer test-operator-key", "client-1"}, // a key of this service, but not an access token
                {"Bearer " + PlatformStubs.token(), null}};
        for (String[] c : cases) {
            RequestSpecification spec = given();
            if (c[0] != null) {
                spec.header("Authorization", c[0]);
            }
            if (c[1] != null) {
                spec.header("client-id", c[1]);
            }
            refused(upload(spec, "1", "a.png", PNG, "image/png"), 401, "INVALID_AUTHORIZATION",
                    "Invalid authorization details");
        }
    }

    @Test
    void theBusinessMustBeTheTokensAndTheUserRegistered() throws Exception {
        long before = storedFiles();
        refused(authed().multiPart("auth_id", "user42").multiPart("business_id", "2002")
                .multiPart("message_type", "1").multiPart("file", "a.png", PNG, "image/png").post(PATH).then(), 403,
                "BUSINESS_NOT_ALLOWED", "does not belong");
        refused(authed().multiPart("auth_id", "stranger").multiPart("business_id", "1001")
                .multiPart("message_type", "1").multiPart("file", "a.png", PNG, "image/png").post(PATH).then(), 403,
                "USER_NOT_REGISTERED", "not registered");
        // the registration is checked by the message's insert; a refusal of the file itself does not come first
        refused(authed().multiPart("auth_id", "stranger").multiPart("business_id", "1001")
                .multiPart("message_type", "1").multiPart("file", "setup.exe", ELF, "application/octet-stream")
                .post(PATH).then(), 403, "USER_NOT_REGISTERED", "not registered");
        refused(authed().multiPart("auth_id", "stranger").multiPart("business_id", "1001")
                .multiPart("message_type", "1").multiPart("file", "cute.jpg", ELF, "image/jpeg").post(PATH).then(),
                403, "USER_NOT_REGISTERED", "not registered");
        assertEquals(before, storedFiles(), "a refused upload left a file behind");
    }

    @Test
    void formRefusalsAreClearAndLeaveNothingBehind() throws Exception {
        long before = storedFiles();
        refused(authed().multiPart("auth_id", "user 42!").multiPart("business_id", "1001")
                .multiPart("message_type", "1").multiPart("file", "a.png", PNG, "image/png").post(PATH).then(), 400,
                "INVALID_AUTH_ID", "auth_id");
        refused(authed().multiPart("auth_id", "user42").multiPart("business_id", "10a1")
                .multiPart("message_type", "1").multiPart("file", "a.png", PNG, "image/png").post(PATH).then(), 400,
                "INVALID_BUSINESS_ID", "digits");
        refused(upload(authed(), "3", "a.png", PNG, "image/png"), 400, "INVALID_MESSAGE_TYPE", "1 (image) or 52");
        refused(authed().multiPart("auth_id", "user42").multiPart("business_id", "1001")
                .multiPart("message_type", "1").post(PATH).then(), 400, "MISSING_FILE", "file is required");
        refused(upload(authed(), "1", "a.png", new byte[0], "image/png"), 400, "MISSING_FILE", "empty");
        refused(authed().multiPart("auth_id", "user42").multiPart("business_id", "1001")
                .multiPart("message_type", "1").multiPart("file", "a.png", PNG, "image/png")
                .multiPart("message_body", "x".repeat(4097)).post(PATH).then(), 400, "MESSAGE_BODY_TOO_LONG", "4096");
        refused(upload(authed(), "52", "a.png", PNG, "image/png"), 415, "UNSUPPORTED_FILE_TYPE",
                "A document (message_type 52) must be a .docx, .doc, .xls, .xlsx or .csv file; got a .png file");
        refused(upload(authed(), "1", "setup.exe", ELF, "application/octet-stream"), 415, "UNSUPPORTED_FILE_TYPE",
                "An image (message_type 1) must be a .jpg, .jpeg, .png or .gif file; got a .exe file");
        refused(upload(authed(), "1", "picture", PNG, "image/png"), 415, "UNSUPPORTED_FILE_TYPE",
                "got a name without an extension");
        // an extension longer than the 100 characters a stored name keeps is refused as any other, not a 500
        refused(upload(authed(), "1", "a." + "b".repeat(150), PNG, "image/png"), 415, "UNSUPPORTED_FILE_TYPE",
                "An image (message_type 1) must be");
        refused(upload(authed(), "52", "report.docx", PNG, "application/octet-stream"), 415, "CONTENT_MISMATCH",
                ".docx");
        refused(upload(authed(), "1", "cute.jpg", ELF, "image/jpeg"), 415, "CONTENT_MISMATCH", ".jpg");
        refused(upload(authed(), "52", "data.csv", new byte[]{'a', 0, 'b'}, "text/csv"), 415, "CONTENT_MISMATCH",
                ".csv");
        refused(given().header("Authorization", "Bearer " + PlatformStubs.token()).header("client-id", "client-1")
                .contentType(ContentType.JSON).body("{}").post(PATH).then(), 415, "UNSUPPORTED_MEDIA_TYPE",
                "multipart");
        assertEquals(before, storedFiles(), "a refused upload left a file behind");
    }

    @Test
    void aFileOfTheExactLimitIsTakenAndOneByteMoreIsRefusedWith413NamingTheLimitInBytes() {
        byte[] png = {(byte) 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
        upload(authed(), "1", "limit.png", withHead(png, 10_485_760), "image/png").statusCode(200);
        refused(upload(authed(), "1", "big.png", withHead(png, 10_485_761), "image/png"), 413, "FILE_TOO_LARGE",
                "larger than the limit of 10 MiB (10,485,760 bytes)");
    }

    @Test
    void aRequestDeclaringMoreThanTheOuterBoundIsRefusedWithJsonBeforeItsBodyIsRead() throws Exception {
        long before = storedFiles();
        String answer = rawUpload("Content-Length: " + (12 * 1024 * 1024) + "\r\n", false);
        assertTrue(answer.startsWith("HTTP/1.1 413"), answer);
        assertTrue(answer.toLowerCase(Locale.ROOT).contains("content-type: application/json"), answer);
        assertTrue(answer.toLowerCase(Locale.ROOT).contains("connection: close"), answer);
        JsonNode body = new ObjectMapper().readTree(answer.substring(answer.indexOf("\r\n\r\n") + 4));
        assertEquals("FILE_TOO_LARGE", body.get("error_code").asText(), answer);
        assertTrue(body.get("error_message").asText().contains("larger than"), answer);
        assertEquals(before, storedFiles());
    }

    /**
     * A file over the limit, and a body over the outer bound (declared, or chunked past it), are refused in one wording
     * that states the one limit a person has to keep to (issue 40), and leave nothing behind.
     */
    @Test
    void aBodyOverTheBoundAndAFileOverTheLimitAreRefusedInOneWording() throws Exception {
        long before = storedFiles();
        byte[] png = {(byte) 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
        String file = upload(authed(), "1", "big.png", withHead(png, 10_485_761), "image/png").statusCode(413)
                .body("error_code", equalTo("FILE_TOO_LARGE")).extract().path("error_message");
        assertEquals("The file is larger than the limit of 10 MiB (10,485,760 bytes)", file);
        for (String answer : new String[]{rawUpload("Content-Length: " + (12 * 1024 * 1024) + "\r\n", false),
                rawUpload("Transfer-Encoding: chunked\r\n", true)}) {
            assertTrue(answer.startsWith("HTTP/1.1 413"), answer);
            JsonNode body = new ObjectMapper().readTree(answer.substring(answer.indexOf("\r\n\r\n") + 4));
            assertEquals("FILE_TOO_LARGE", body.get("error_code").asText(), answer);
            assertEquals(file, body.get("error_message").asText(), answer);
        }
        assertEquals(before, storedFiles());
    }

    /** A token request sent to upload-service's port is told where it belongs (issue 40). */
    @Test
    void aTokenRequestSentHereNamesManagementService() {
        for (String path : new String[]{"/platform/management/token/issue/", "/jwt/issue"}) {
            given().contentType(ContentType.JSON).header("Signature", "c2ln").header("SignatureCertUUID", "x")
                    .body("{\"client_id\":\"c\",\"fqdn\":\"client.example.com\",\"timestamp\":\"2026-01-01T00:00:00Z\"}")
                    .post(path).then().statusCode(404).contentType(ContentType.JSON)
                    .body("error_code", equalTo("WRONG_SERVICE"))
                    .body("error_message", containsString("This is upload-service"))
                    .body("error_message", containsString("send it to management-service (by default on port 8081"));
        }
    }

    @Test
    void aChunkedRequestPassingTheOuterBoundIsRefusedWithJsonAndItsConnectionClosed() throws Exception {
        long before = storedFiles();
        String answer = rawUpload("Transfer-Encoding: chunked\r\n", true);
        assertTrue(answer.startsWith("HTTP/1.1 413"), answer);
        assertTrue(answer.toLowerCase(Locale.ROOT).contains("connection: close"), answer);
        assertTrue(answer.contains("\"error_code\":\"FILE_TOO_LARGE\""), answer);
        assertEquals(before, storedFiles());
    }

    /**
     * A multipart upload over a plain socket with the given framing header: with {@code chunked}, 64 KiB chunks of a
     * file part until the server answers or stops reading (at most 16 MiB); otherwise the headers only. Returns all
     * the server sent before it closed the connection (the read fails if it stays open for 10 s).
     */
    private static String rawUpload(String framing, boolean chunked) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", RestAssured.port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST " + PATH + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + PlatformStubs.token()
                    + "\r\nclient-id: client-1\r\nContent-Type: multipart/form-data; boundary=b0undary\r\n" + framing
                    + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            if (chunked) {
                byte[] chunk = new byte[64 * 1024];
                byte[] part = ("--b0undary\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.png\"\r\n"
                        + "Content-Type: image/png\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
                System.arraycopy(part, 0, chunk, 0, part.length);
                try {
                    for (int i = 0; i < 256 && socket.getInputStream().available() == 0; i++) {
                        out.write((Integer.toHexString(chunk.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                        out.write(chunk);
                        out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                        java.util.Arrays.fill(chunk, 0, part.length, (byte) 'x'); // the part's head once only
                    }
                } catch (IOException closed) {
                    // the server stopped reading and closed; its answer is already in the receive buffer
                }
            }
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    @Test
    @DisabledOnIntegrationTest("reads the outbox row through Panache, which only a test inside the application has")
    void whenHookServiceIsDownTheUploadSucceedsAndTheEventFollowsLater() {
        PlatformStubs.intakeDown = true;
        long id = ((Number) upload(authed(), "1", "later.png", PNG, "image/png").statusCode(200).extract()
                .path("message_id")).longValue();
        // the hand-off was tried, failed on the intake that is down, and the event was kept for a later try
        await().atMost(Duration.ofSeconds(30)).until(() -> failedHandOffs(id) >= 1);
        assertTrue(PlatformStubs.EVENTS.stream().noneMatch(e -> e.contains("\"message_id\":" + id + ",")));
        PlatformStubs.intakeDown = false;
        await().atMost(Duration.ofSeconds(30))
                .until(() -> PlatformStubs.EVENTS.stream().anyMatch(e -> e.contains("\"message_id\":" + id + ",")));
    }

    /** The failed tries recorded on the message's event in the outbox (0 once it has left the outbox). */
    int failedHandOffs(long messageId) {
        return OutboxRows.attemptsOfMessage(messageId);
    }

    @Test
    void eventsGoToTheBatchIntakeAndAnOlderHookServiceGetsThemOneCallEach() {
        int single = PlatformStubs.SINGLE_CALLS.get();
        int batches = PlatformStubs.BATCH_CALLS.get();
        String url = upload(authed(), "1", "batched.png", PNG, "image/png").statusCode(200).extract().path("file_url");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> PlatformStubs.EVENTS.stream().anyMatch(e -> e.contains(url)));
        assertTrue(PlatformStubs.BATCH_CALLS.get() > batches, "sent through the batch intake");
        assertEquals(single, PlatformStubs.SINGLE_CALLS.get(), "no single intake call while the batch intake is there");

        PlatformStubs.noBatchIntake = true; // 404 on the batch path, as a hook-service without it answers
        String alone = upload(authed(), "1", "alone.png", PNG, "image/png").statusCode(200).extract().path("file_url");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> PlatformStubs.EVENTS.stream().anyMatch(e -> e.contains(alone)));
        assertTrue(PlatformStubs.SINGLE_CALLS.get() > single, "sent through the single intake");
        assertTrue(PlatformStubs.EVENTS.stream().filter(e -> e.contains(alone))
                .noneMatch(e -> e.contains("\"request_id\"")),
                "the single intake gets the request id as a header only");
    }

    /**
     * A batch over hook-service's body limit (256 KiB: 32 events with long message bodies) is refused whole with 413;
     * its events then go one call each instead of waiting, batch after batch, for ever.
     */
    @Test
    void aBatchTooLargeForHookServiceGoesOneEventACall() {
        int single = PlatformStubs.SINGLE_CALLS.get();
        PlatformStubs.batchBodyLimit = 10; // every batch is over it
        String url = upload(authed(), "1", "large-batch.png", PNG, "image/png").statusCode(200).extract()
                .path("file_url");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> PlatformStubs.EVENTS.stream().anyMatch(e -> e.contains(url)));
        assertTrue(PlatformStubs.SINGLE_CALLS.get() > single, "sent through the single intake");
    }

    @Test
    void anEventHookServiceRefusesWaitsForItsBackoffWhileTheOthersGoOn() {
        PlatformStubs.REFUSED.add("refused-once.png");
        String refused = upload(authed(), "1", "refused-once.png", PNG, "image/png").statusCode(200).extract()
                .path("file_url");
        String other = upload(authed(), "1", "accepted.png", PNG, "image/png").statusCode(200).extract()
                .path("file_url");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> PlatformStubs.EVENTS.stream().anyMatch(e -> e.contains(other)));
        assertTrue(PlatformStubs.EVENTS.stream().noneMatch(e -> e.contains(refused)));
        PlatformStubs.REFUSED.clear(); // hook-service takes it now: it goes out at its next attempt
        await().atMost(Duration.ofSeconds(30))
                .until(() -> PlatformStubs.EVENTS.stream().anyMatch(e -> e.contains(refused)));
    }

    @Test
    void unknownFilesAreNotFound() {
        given().get("/files/00000000000000000000000000000000/x.png").then().statusCode(404)
                .body("error_code", equalTo("FILE_NOT_FOUND"));
        given().get("/files/..%2F..%2Fetc/passwd").then().statusCode(404);
    }
}
