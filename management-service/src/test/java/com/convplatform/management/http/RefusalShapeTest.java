package com.convplatform.management.http;

import static com.convplatform.management.Fixtures.OPERATOR;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.startsWith;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;

/**
 * The framework's own refusals answer with the one error body (service-support's ErrorMappers and BodyLimit), never
 * with an empty body or a framework default message; and the OpenAPI document tells a person in Swagger UI how to
 * authorize and what each refusal carries.
 */
@QuarkusTest
class RefusalShapeTest {
    @TestHTTPResource("/")
    URL base;

    static void refused(ValidatableResponse r, int status, String code) {
        r.statusCode(status).contentType(ContentType.JSON).body("error_code", equalTo(code))
                .body("error_message", notNullValue()).body("error_message", not(startsWith("HTTP ")));
    }

    @Test
    void malformedJsonAtTheOperatorApiIsNamed() {
        refused(given().header("Authorization", OPERATOR).contentType(ContentType.JSON).body("{\"name\": ")
                .post("/admin/v1/accounts").then(), 400, "MALFORMED_JSON");
        refused(given().header("Authorization", OPERATOR).contentType(ContentType.JSON).body("[1, 2]")
                .post("/admin/v1/accounts").then(), 400, "MALFORMED_JSON");
        // one valid object with more after it is not one JSON body (service-support's StrictJson), and creates nothing
        String fqdn = "trailing-" + System.nanoTime() + ".example.com";
        refused(given().header("Authorization", OPERATOR).contentType(ContentType.JSON)
                .body("{\"name\":\"T\",\"fqdn\":\"" + fqdn + "\",\"business_id\":\"77\",\"webhook_url\":"
                        + "\"https://" + fqdn + "/h\"} {\"more\":1}")
                .post("/admin/v1/accounts").then(), 400, "MALFORMED_JSON");
        given().header("Authorization", OPERATOR).get("/admin/v1/accounts").then().statusCode(200)
                .body("fqdn", org.hamcrest.Matchers.not(org.hamcrest.Matchers.hasItem(fqdn)));
    }

    @Test
    void aMissingBodyAndEachInvalidFieldHaveTheirCode() {
        refused(given().header("Authorization", OPERATOR).contentType(ContentType.JSON)
                .post("/admin/v1/accounts").then(), 400, "MISSING_FIELD");
        refused(given().header("Authorization", OPERATOR).contentType(ContentType.JSON)
                .body(Map.of("name", "x".repeat(201), "fqdn", "a.example.org", "business_id", "1", "webhook_url",
                        "https://a.example.org/h"))
                .post("/admin/v1/accounts").then(), 400, "INVALID_NAME");
    }

    @Test
    void unknownPathsMethodsAndMediaTypes() {
        refused(given().get("/no/such/path").then(), 404, "NOT_FOUND");
        // the 405 says what the path takes (Allow), for a path with parameters too
        refused(given().header("Authorization", OPERATOR).put("/admin/v1/accounts").then()
                .header("Allow", "GET, HEAD, OPTIONS, POST"), 405, "METHOD_NOT_ALLOWED");
        refused(given().header("Authorization", OPERATOR).post("/admin/v1/accounts/some-id").then()
                .header("Allow", "GET, HEAD, OPTIONS, PATCH, PUT"), 405, "METHOD_NOT_ALLOWED");
        refused(given().header("Authorization", OPERATOR).contentType(ContentType.TEXT).body("name=x")
                .post("/admin/v1/accounts").then(), 415, "UNSUPPORTED_MEDIA_TYPE");
    }

    @Test
    void theInternalKeyDoesNotOpenTheOperatorApiNorTheOtherWayRound() {
        refused(given().header("Authorization", "Bearer test-internal-key").get("/admin/v1/accounts").then(), 403,
                "FORBIDDEN");
        refused(given().header("Authorization", OPERATOR).get("/internal/v1/accounts/x").then(), 403, "FORBIDDEN");
        refused(given().header("Authorization", "Bearer nope").get("/internal/v1/accounts/x").then(), 401,
                "UNAUTHORIZED");
    }

    /** Over 256 KiB declared: refused by its length, before the body, with the error body; the connection closes. */
    @Test
    void aBodyOverTheLimitIsRefusedWithTheErrorBodyBeforeItIsSent() throws IOException {
        String answer = exchange(OPERATOR, "Content-Length: 300000", new byte[]{'{'});
        assertRefused(answer, "HTTP/1.1 413", "BODY_TOO_LARGE");
    }

    /** Chunked, so no length is declared: refused once the body passes 256 KiB, with the error body. */
    @Test
    void aChunkedBodyOverTheLimitIsRefusedWithTheErrorBody() throws IOException {
        byte[] body = new byte[5 * 64 * 1024];
        java.util.Arrays.fill(body, (byte) ' ');
        assertRefused(exchange(OPERATOR, "Transfer-Encoding: chunked", body), "HTTP/1.1 413", "BODY_TOO_LARGE");
    }

    /** Chunked within the limit: taken as any other body; with a wrong key, refused 401. */
    @Test
    void aChunkedBodyWithinTheLimitIsTakenAndABadKeyIsStillRefused() throws IOException {
        String fqdn = "chunked-" + System.nanoTime() + ".example.com";
        byte[] json = new ObjectMapper().writeValueAsBytes(Map.of("name", "Chunked", "fqdn", fqdn, "business_id",
                String.valueOf(System.nanoTime() % 1_000_000), "webhook_url", "https://" + fqdn + "/hooks"));
        String created = exchange(OPERATOR, "Transfer-Encoding: chunked", json);
        org.junit.jupiter.api.Assertions.assertTrue(created.startsWith("HTTP/1.1 201"), created);
        org.junit.jupiter.api.Assertions.assertEquals(fqdn, body(created).get("fqdn").asText());
        assertRefused(exchange("Bearer wrong", "Transfer-Encoding: chunked", json), "HTTP/1.1 401", "UNAUTHORIZED");
    }

    /**
     * HTTP/2 (cleartext, prior knowledge): a declared length over 256 KiB is refused with the error body; a body that
     * declares none is refused past the limit by Quarkus REST's reader with an empty 413 (BodyLimit's class note says
     * why), and either answer is valid HTTP/2 (no HTTP/1 connection header, which the client would reject as a protocol
     * error); a body within the limit is taken; a wrong key is refused 401.
     */
    @Test
    void http2BodiesAreLimitedToo() throws Exception {
        byte[] over = new byte[5 * 64 * 1024];
        java.util.Arrays.fill(over, (byte) ' ');
        String[] declared = http2(OPERATOR, over, true);
        org.junit.jupiter.api.Assertions.assertEquals("413", declared[0], declared[1]);
        org.junit.jupiter.api.Assertions.assertEquals("BODY_TOO_LARGE",
                new ObjectMapper().readTree(declared[1]).get("error_code").asText());
        org.junit.jupiter.api.Assertions.assertEquals("413", http2(OPERATOR, over, false)[0]);
        String fqdn = "h2-" + System.nanoTime() + ".example.com";
        byte[] json = new ObjectMapper().writeValueAsBytes(Map.of("name", "Over HTTP/2", "fqdn", fqdn, "business_id",
                String.valueOf(System.nanoTime() % 1_000_000), "webhook_url", "https://" + fqdn + "/hooks"));
        String[] created = http2(OPERATOR, json, false);
        org.junit.jupiter.api.Assertions.assertEquals("201", created[0], created[1]);
        org.junit.jupiter.api.Assertions.assertEquals(fqdn,
                new ObjectMapper().readTree(created[1]).get("fqdn").asText());
        String[] wrongKey = http2("Bearer wrong", json, false);
        org.junit.jupiter.api.Assertions.assertEquals("401", wrongKey[0], wrongKey[1]);
    }

    /** POSTs {@code body} to the accounts over HTTP/2 in 64 KiB writes: {status, body}. */
    private String[] http2(String authorization, byte[] body, boolean declareLength) throws Exception {
        io.vertx.core.Vertx vertx = io.vertx.core.Vertx.vertx();
        try {
            io.vertx.core.http.HttpClient client = vertx.createHttpClient(new io.vertx.core.http.HttpClientOptions()
                    .setProtocolVersion(io.vertx.core.http.HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false));
            return client.request(io.vertx.core.http.HttpMethod.POST, base.getPort(), base.getHost(),
                    "/admin/v1/accounts").compose(request -> {
                        if (declareLength) {
                            request.putHeader("Content-Length", String.valueOf(body.length));
                        } else {
                            request.setChunked(true); // over HTTP/2: no length is declared
                        }
                        request.putHeader("Authorization", authorization).putHeader("Content-Type",
                                "application/json");
                        for (int at = 0; at < body.length; at += 64 * 1024) {
                            request.write(io.vertx.core.buffer.Buffer.buffer(java.util.Arrays.copyOfRange(body, at,
                                    Math.min(body.length, at + 64 * 1024))));
                        }
                        request.end();
                        return request.response().compose(response -> {
                            org.junit.jupiter.api.Assertions.assertEquals(io.vertx.core.http.HttpVersion.HTTP_2,
                                    response.version());
                            return response.body().map(b -> new String[]{String.valueOf(response.statusCode()),
                                    b.toString()});
                        });
                    }).toCompletionStage().toCompletableFuture().get(20, java.util.concurrent.TimeUnit.SECONDS);
        } finally {
            vertx.close();
        }
    }

    /** POSTs {@code body} to the accounts, in 64 KiB chunks when the head says chunked; the whole answer. */
    private String exchange(String authorization, String framing, byte[] body) throws IOException {
        try (Socket s = new Socket(base.getHost(), base.getPort())) {
            OutputStream out = s.getOutputStream();
            out.write(("POST /admin/v1/accounts HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nAuthorization: "
                    + authorization + "\r\nContent-Type: application/json\r\n" + framing + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            try {
                if (!framing.contains("chunked")) {
                    out.write(body);
                } else {
                    for (int at = 0; at < body.length; at += 64 * 1024) {
                        int n = Math.min(64 * 1024, body.length - at);
                        out.write((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                        out.write(body, at, n);
                        out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                    }
                    out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                }
                out.flush();
            } catch (IOException closedWhileSending) {
                // the service may close once it has answered; the answer is still there to read
            }
            return new String(readAll(s.getInputStream()), StandardCharsets.UTF_8);
        }
    }

    private static JsonNode body(String answer) throws IOException {
        return new ObjectMapper().readTree(answer.substring(answer.indexOf("\r\n\r\n") + 4));
    }

    private static void assertRefused(String answer, String statusLine, String code) throws IOException {
        org.junit.jupiter.api.Assertions.assertTrue(answer.startsWith(statusLine), answer);
        org.junit.jupiter.api.Assertions.assertEquals(code, body(answer).get("error_code").asText());
    }

    @Test
    void theOpenApiDocumentDeclaresTheBearerSchemeTheStatusesAndTheErrorBody() {
        given().accept(ContentType.JSON).get("/q/openapi").then().statusCode(200)
                .body("components.securitySchemes.bearer.scheme", equalTo("bearer"))
                .body("components.schemas", hasKey("Error"))
                .body("paths.'/admin/v1/accounts'.post.responses", hasKey("201"))
                .body("paths.'/admin/v1/accounts'.post.responses.'401'.content.'application/json'.schema.$ref",
                        equalTo("#/components/schemas/Error"))
                .body("paths.'/admin/v1/accounts/{accountId}/certificates/{certificateUuid}'.delete.responses",
                        hasKey("204"))
                .body("paths.'/platform/management/token/issue'.post.requestBody.content", hasKey("application/json"))
                .body("paths.'/platform/management/token/issue'.post.parameters.name", org.hamcrest.Matchers
                        .hasItems("Signature", "SignatureCertChainUrl", "SignatureCertUUID"))
                .body("paths.'/platform/management/token/issue'.post.responses.'400'.description",
                        containsString("NOT_AUTHENTICATED"))
                // real values in Swagger UI's examples; neither certificate header filled in (Try it out would send it)
                .body("components.schemas.TokenResponse.properties.access_token.examples[0]", startsWith("eyJ"))
                .body("paths.'/platform/management/token/issue'.post.parameters.find { it.name == 'SignatureCertChainUrl' }"
                        + ".example", org.hamcrest.Matchers.nullValue())
                .body("paths.'/platform/management/token/issue'.post.parameters.find { it.name == 'SignatureCertUUID' }"
                        + ".example", org.hamcrest.Matchers.nullValue())
                .body("paths.'/admin/v1/jwt/rotate'.post.responses.'200'.content.'application/json'.schema.$ref",
                        equalTo("#/components/schemas/RotatedKey"));
    }

    private static byte[] readAll(InputStream in) throws IOException {
        return in.readAllBytes();
    }
}
