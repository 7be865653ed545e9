package com.convplatform.upload.message;

import static com.convplatform.upload.message.UploadTest.PATH;
import static com.convplatform.upload.message.UploadTest.PNG;
import static com.convplatform.upload.message.UploadTest.authed;
import static com.convplatform.upload.message.UploadTest.refused;
import static com.convplatform.upload.message.UploadTest.storedFiles;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.convplatform.load.upload.PlatformStubs;
import com.convplatform.testsupport.ManagementInterface;
import com.convplatform.upload.PlatformStubsResource;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;

/**
 * The upload form as Quarkus REST reads it, part by part while it arrives: part order, repeated and unknown parts,
 * malformed bodies, the request bound for bodies without a declared length, refused requests whose connection stays
 * usable, and no temporary file left behind.
 */
@QuarkusTest
@QuarkusTestResource(PlatformStubsResource.class)
class UploadFormTest {
    static final String BOUNDARY = "form-test-b0undary";
    static final Path INCOMING = Paths.get("target/test-data/incoming");

    @BeforeEach
    void registeredUser() {
        given().header("Authorization", "Bearer test-operator-key").contentType(ContentType.JSON)
                .body(Map.of("auth_id", "user42", "business_id", "1001")).post("/admin/v1/users");
        PlatformStubs.intakeDown = false;
    }

    static String field(String name, String value) {
        return "--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"" + name + "\"\r\n\r\n" + value + "\r\n";
    }

    static byte[] body(Object... pieces) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Object p : pieces) {
            out.writeBytes(p instanceof byte[] b ? b : ((String) p).getBytes(StandardCharsets.UTF_8));
        }
        return out.toByteArray();
    }

    static String fileHead(String fileName) {
        return "--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + fileName
                + "\"\r\nContent-Type: image/png\r\n\r\n";
    }

    static final String CLOSE = "--" + BOUNDARY + "--\r\n";

    static io.restassured.response.ValidatableResponse post(byte[] body) {
        return authed().contentType("multipart/form-data; boundary=" + BOUNDARY).body(body).post(PATH).then();
    }

    static long incomingParts() throws IOException {
        return UploadTest.filesIn(INCOMING);
    }

    @Test
    void javasDefaultHttpClientUploadsOverPlainHttp() throws Exception {
        // java.net.http.HttpClient prefers HTTP/2: over http:// its first request offers the upgrade (Upgrade: h2c)
        // with the body, which the service must read like any other.
        byte[] form = body(field("auth_id", "user42"), field("business_id", "1001"), field("message_type", "1"),
                field("message_body", "over h2c"), fileHead("h2c.png"), PNG, "\r\n", CLOSE);
        java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
        for (int i = 0; i < 2; i++) { // the first offers the upgrade; the second goes on the upgraded connection
            java.net.http.HttpResponse<String> answer = client.send(java.net.http.HttpRequest
                    .newBuilder(java.net.URI.create("http://localhost:" + RestAssured.port + PATH))
                    .header("Authorization", "Bearer " + PlatformStubs.token()).header("client-id", "client-1")
                    .header("Content-Type", "multipart/form-data; boundary=" + BOUNDARY)
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofByteArray(form)).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(200, answer.statusCode(), answer.version() + " " + answer.body());
            assertTrue(answer.body().contains("\"message_body\":\"over h2c\""), answer.body());
        }
    }

    @Test
    void theFileMayComeFirstAndUnknownAndRepeatedPartsAreIgnored() throws IOException {
        String url = post(body(fileHead("first.png"), PNG, "\r\n", field("message_type", "1"),
                field("unknown", "ignored"), "--" + BOUNDARY
                        + "\r\nContent-Disposition: form-data; name=\"other\"; filename=\"other.bin\"\r\n\r\n",
                "other file\r\n", field("auth_id", "user42"), field("auth_id", "not valid!"),
                field("business_id", "1001"), field("message_body", "file first"), CLOSE)).statusCode(200)
                .body("message_body", equalTo("file first")).body("message_type", equalTo(1)).extract()
                .path("file_url");
        String local = url.substring("https://files.platform.example".length());
        assertArrayEquals(PNG, given().get(local).then().statusCode(200).extract().asByteArray());
        assertTrue(url.endsWith("/first.png"), url);
        await().atMost(Duration.ofSeconds(30)).until(() -> incomingParts() == 0); // moved into the store, or deleted
    }

    @Test
    void malformedFormsAreRefusedWith400AndLeaveNothingBehind() throws IOException {
        long before = storedFiles();
        refused(post(body(field("auth_id", "user42"), fileHead("a.png"), PNG)), 400, "INVALID_MULTIPART",
                "closing boundary");
        refused(post(body("--" + BOUNDARY + "\r\nno colon here\r\n\r\nx\r\n", CLOSE)), 400, "INVALID_MULTIPART",
                "header");
        refused(authed().contentType("multipart/form-data").body(body(field("a", "b"), CLOSE)).post(PATH).then(),
                400, "INVALID_MULTIPART", "boundary");
        StringBuilder many = new StringBuilder();
        for (int i = 0; i <= 32; i++) {
            many.append(field("p" + i, "v"));
        }
        refused(post(body(many.toString(), CLOSE)), 400, "INVALID_MULTIPART", "more than 32");
        assertEquals(before, storedFiles());
        await().atMost(Duration.ofSeconds(30)).until(() -> incomingParts() == 0);
    }

    @Test
    void textFieldsOverTheirBoundAreRefusedAsTooLong() {
        String huge = "u".repeat(16 * 1024 + 1);
        refused(post(body(field("auth_id", huge), field("business_id", "1001"), field("message_type", "1"),
                fileHead("a.png"), PNG, "\r\n", CLOSE)), 400, "FIELD_TOO_LONG", "16 KiB");
        refused(post(body(field("auth_id", "user42"), field("business_id", "1001"), field("message_type", "1"),
                fileHead("a.png"), PNG, "\r\n", field("message_body", huge), CLOSE)), 400, "FIELD_TOO_LONG", "4096");
        // within the bound, each field's own rule answers
        refused(post(body(field("auth_id", "u".repeat(65)), field("business_id", "1001"), field("message_type", "1"),
                fileHead("a.png"), PNG, "\r\n", CLOSE)), 400, "INVALID_AUTH_ID", "auth_id");
        refused(post(body(field("auth_id", "user42"), field("business_id", "1001"), field("message_type", "1"),
                fileHead("a.png"), PNG, "\r\n", field("message_body", "é".repeat(4097)), CLOSE)), 400,
                "MESSAGE_BODY_TOO_LONG", "4096");
    }

    /** Sends raw bytes on one connection and reads one response (headers and a Content-Length body). */
    static String exchange(Socket socket, byte[] request) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(request);
        out.flush();
        InputStream in = socket.getInputStream();
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("closed after " + head);
            }
            head.write(b);
        }
        String headers = head.toString(StandardCharsets.ISO_8859_1);
        int length = 0;
        for (String line : headers.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).trim());
            }
        }
        return headers + new String(in.readNBytes(length), StandardCharsets.UTF_8);
    }

    static byte[] request(String token, byte[] body) {
        return request(token, "client-1", body);
    }

    static byte[] request(String token, String clientId, byte[] body) {
        return body("POST " + PATH + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token
                + "\r\nclient-id: " + clientId + "\r\nContent-Type: multipart/form-data; boundary=" + BOUNDARY
                + "\r\nContent-Length: " + body.length + "\r\n\r\n", body);
    }

    @Test
    void aRefusedUploadIsReadToItsEndSoTheConnectionCarriesTheNextRequest() throws IOException {
        byte[] bigFile = new byte[3 * 1024 * 1024];
        System.arraycopy(PNG, 0, bigFile, 0, PNG.length);
        byte[] form = body(field("auth_id", "user42"), field("business_id", "1001"), field("message_type", "1"),
                fileHead("big.png"), bigFile, "\r\n", CLOSE);
        try (Socket socket = new Socket("127.0.0.1", RestAssured.port)) {
            socket.setSoTimeout(10_000);
            String refused = exchange(socket, request("not-a-token", form));
            assertTrue(refused.startsWith("HTTP/1.1 401"), refused);
            assertTrue(refused.contains("INVALID_AUTHORIZATION"), refused);
            String accepted = exchange(socket, request(PlatformStubs.token(), form));
            assertTrue(accepted.startsWith("HTTP/1.1 200"), accepted);
            String malformed = exchange(socket, request(PlatformStubs.token(),
                    body(field("x", "1"), "--" + BOUNDARY + "\r\nno colon here\r\n\r\nx\r\n", CLOSE)));
            assertTrue(malformed.startsWith("HTTP/1.1 400"), malformed);
            assertTrue(malformed.contains("INVALID_MULTIPART"), malformed);
            assertTrue(exchange(socket, body("GET /q/openapi HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
                    .startsWith("HTTP/1.1 200"));
        }
    }

    @Test
    void aFileOverTheLimitInABodyWithinTheBoundIsRefusedAndTheConnectionStaysUsable() throws IOException {
        byte[] file = new byte[10 * 1024 * 1024 + 1];
        System.arraycopy(PNG, 0, file, 0, PNG.length);
        byte[] form = body(field("auth_id", "user42"), field("business_id", "1001"), field("message_type", "1"),
                fileHead("big.png"), file, "\r\n", CLOSE);
        try (Socket socket = new Socket("127.0.0.1", RestAssured.port)) {
            socket.setSoTimeout(10_000);
            String answer = exchange(socket, request(PlatformStubs.token(), form));
            assertTrue(answer.startsWith("HTTP/1.1 413"), answer);
            assertTrue(answer.contains("\"error_code\":\"FILE_TOO_LARGE\""), answer);
            assertTrue(exchange(socket, body("GET /q/openapi HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
                    .startsWith("HTTP/1.1 200"));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> incomingParts() == 0);
    }

    @Test
    void anUploadCutOffMidFileLeavesNoFileBehind() throws Exception {
        long before = storedFiles();
        try (Socket socket = new Socket("127.0.0.1", RestAssured.port)) {
            byte[] partial = body(field("auth_id", "user42"), field("business_id", "1001"),
                    field("message_type", "1"), fileHead("cut.png"), PNG);
            OutputStream out = socket.getOutputStream();
            out.write(body("POST " + PATH + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                    + PlatformStubs.token() + "\r\nclient-id: client-1\r\nContent-Type: multipart/form-data; boundary="
                    + BOUNDARY + "\r\nContent-Length: " + (partial.length + 1_000_000) + "\r\n\r\n", partial));
            out.flush();
            // the file part is written to the incoming directory while it arrives
            await().atMost(Duration.ofSeconds(30)).until(() -> incomingParts() == 1);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> incomingParts() == 0);
        assertEquals(before, storedFiles());
        authed().multiPart("auth_id", "user42").multiPart("business_id", "1001").multiPart("message_type", "1")
                .multiPart("file", "after.png", PNG, "image/png").post(PATH).then().statusCode(200);
    }

    @Test
    void aSmallUploadCutOffBeforeItsEndLeavesNothingAndIsCountedAsIncomplete() throws Exception {
        long before = storedFiles();
        double incomplete = refusals("INCOMPLETE_BODY");
        byte[] partial = body(field("auth_id", "user42"), field("business_id", "1001"), field("message_type", "1"),
                fileHead("cut-small.png"), PNG);
        try (Socket socket = new Socket("127.0.0.1", RestAssured.port)) {
            OutputStream out = socket.getOutputStream();
            // declares 500 bytes more than it sends, then goes away while the service waits for them
            out.write(body("POST " + PATH + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                    + PlatformStubs.token() + "\r\nclient-id: client-1\r\nContent-Type: multipart/form-data; boundary="
                    + BOUNDARY + "\r\nContent-Length: " + (partial.length + 500) + "\r\n\r\n", partial));
            out.flush();
            await().atMost(Duration.ofSeconds(30)).until(() -> incomingParts() == 1);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> refusals("INCOMPLETE_BODY") > incomplete);
        assertEquals(before, storedFiles());
        await().atMost(Duration.ofSeconds(30)).until(() -> incomingParts() == 0);
    }

    /**
     * A body that trickles in a byte at a time (each byte well within any idle time-out) is still answered at
     * upload.body-deadline (8 s in the tests): 408 BODY_TIMEOUT with its body, the connection closed, nothing kept.
     */
    @Test
    void aBodyThatTricklesInIsAnswered408AtTheDeadlineAndLeavesNothing() throws Exception {
        long before = storedFiles();
        byte[] partial = body(field("auth_id", "user42"), field("business_id", "1001"), field("message_type", "1"),
                fileHead("slow.png"), PNG);
        try (Socket socket = new Socket("127.0.0.1", RestAssured.port)) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            Thread trickle = new Thread(() -> {
                try {
                    while (true) {
                        Thread.sleep(500); // the slow client: one byte every half second
                        out.write('x');
                        out.flush();
                    }
                } catch (IOException | InterruptedException closed) {
                    // the service closed the connection, or the test ended
                }
            });
            long start = System.nanoTime();
            out.write(body("POST " + PATH + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                    + PlatformStubs.token() + "\r\nclient-id: client-1\r\nContent-Type: multipart/form-data; boundary="
                    + BOUNDARY + "\r\nContent-Length: " + (partial.length + 100_000) + "\r\n\r\n", partial));
            out.flush();
            trickle.start();
            String answer;
            try {
                answer = exchange(socket, new byte[0]);
            } finally {
                trickle.interrupt();
            }
            long seconds = (System.nanoTime() - start) / 1_000_000_000L;
            assertTrue(answer.startsWith("HTTP/1.1 408"), answer);
            assertTrue(answer.contains("\"error_code\":\"BODY_TIMEOUT\""), answer);
            assertTrue(answer.toLowerCase(Locale.ROOT).contains("connection: close"), answer);
            assertTrue(seconds >= 7 && seconds < 20, "answered after " + seconds + " s");
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> incomingParts() == 0);
        assertEquals(before, storedFiles());
    }

    @Test
    void aSmallUploadWhoseRestComesLateIsStillAccepted() throws Exception {
        byte[] form = body(field("auth_id", "user42"), field("business_id", "1001"), field("message_type", "1"),
                fileHead("late.png"), PNG, "\r\n", CLOSE);
        int half = form.length / 2;
        try (Socket socket = new Socket("127.0.0.1", RestAssured.port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(body("POST " + PATH + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                    + PlatformStubs.token() + "\r\nclient-id: client-1\r\nContent-Type: multipart/form-data; boundary="
                    + BOUNDARY + "\r\nContent-Length: " + form.length + "\r\n\r\n",
                    java.util.Arrays.copyOf(form, half)));
            out.flush();
            // a slow client: the rest comes 1.5 s later; the form is read as it arrives (within quarkus.http.read-timeout)
            Thread.sleep(1500);
            out.write(form, half, form.length - half);
            out.flush();
            String answer = new String(socket.getInputStream().readNBytes(12), StandardCharsets.ISO_8859_1);
            assertEquals("HTTP/1.1 200", answer);
        }
    }

    @Test
    void otherMethodsOnTheUploadPathAreRefusedWith405() {
        refused(authed().get(PATH).then().header("Allow", "POST"), 405, "METHOD_NOT_ALLOWED", "POST");
        refused(authed().contentType(ContentType.JSON).body("{}").put(PATH).then(), 405, "METHOD_NOT_ALLOWED",
                "POST");
    }

    @Test
    void thePathWithoutItsTrailingSlashIsTheSameEndpoint() {
        authed().contentType("multipart/form-data; boundary=" + BOUNDARY)
                .body(body(field("auth_id", "user42"), field("business_id", "1001"), field("message_type", "1"),
                        fileHead("slash.png"), PNG, "\r\n", CLOSE))
                .post(PATH.substring(0, PATH.length() - 1)).then().statusCode(200)
                .body("file_url", org.hamcrest.Matchers.endsWith("/slash.png"));
    }

    /** upload_refusals_total for a reason, from /q/metrics. */
    static double refusals(String reason) {
        String metrics = given().get(ManagementInterface.url("/q/metrics")).then().statusCode(200).extract().asString();
        return metrics.lines().filter(l -> l.startsWith("upload_refusals_total{") && l.contains("\"" + reason + "\""))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    @Test
    void theOpenApiDocumentShowsTheFormWithItsFilePart() {
        given().get("/q/openapi?format=json").then().statusCode(200)
                .body("paths.'/v1.0/log_file_from_user'.post.requestBody.content.'multipart/form-data'.schema.$ref",
                        equalTo("#/components/schemas/UploadForm"))
                .body("components.schemas.UploadForm.properties.file.format", equalTo("binary"))
                .body("components.schemas.UploadForm.properties.message_type.enum", equalTo(List.of("1", "52")))
                .body("components.schemas.UploadForm.required",
                        equalTo(List.of("auth_id", "business_id", "message_type", "file")));
    }
}
