package com.convplatform.hook.http;

import static com.convplatform.hook.delivery.HookDeliveryTest.INTERNAL;
import static com.convplatform.hook.delivery.HookDeliveryTest.OPERATOR;
import static com.convplatform.hook.delivery.HookDeliveryTest.event;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import com.convplatform.hook.HookPlatformResource;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;

/**
 * Every refusal of intake and of the operator API answers with its status and the one error body, the framework's
 * own refusals included, and changes nothing; the key is checked before the body is read; the OpenAPI document says
 * how to authorize, what each operation answers and with which codes.
 */
@QuarkusTest
@QuarkusTestResource(HookPlatformResource.class)
class RefusalShapeTest {
    @TestHTTPResource("/")
    URL base;

    static void refused(ValidatableResponse r, int status, String code) {
        r.statusCode(status).contentType(ContentType.JSON).body("error_code", equalTo(code))
                .body("error_message", notNullValue()).body("error_message", not(startsWith("HTTP ")));
    }

    static ValidatableResponse intake(Object body) {
        return given().header("Authorization", INTERNAL).contentType(ContentType.JSON).body(body)
                .post("/internal/v1/events").then();
    }

    static Map<String, Object> with(String account, String field, Object value) {
        Map<String, Object> e = event(account, 1);
        e.put(field, value);
        return e;
    }

    @Test
    void eachInvalidFieldOfAnEventHasItsCodeAndNothingIsStored() {
        String account = "refused-" + UUID.randomUUID();
        refused(intake(with(account, "user_id", 5)).body("error_message", containsString("user_id")), 400,
                "MISSING_FIELD");
        refused(intake(with(account, "message_id", "12")).body("error_message", containsString("message_id")), 400,
                "MISSING_FIELD");
        refused(intake(with(account, "message_id", 1.5)), 400, "MISSING_FIELD");
        refused(intake(with(account, "conversation_number", -1)), 400, "MISSING_FIELD");
        refused(intake(with(account, "sender", "")), 400, "MISSING_FIELD");
        refused(intake(with(account, "user_id", "u".repeat(257))).body("error_message", containsString("256")), 400,
                "FIELD_TOO_LONG");
        refused(intake(with(account, "message_body", "m".repeat(64 * 1024 + 1))), 400, "FIELD_TOO_LONG");
        refused(intake(with("a".repeat(65), "user_id", "u")), 400, "FIELD_TOO_LONG");
        refused(intake(with(account, "timestamp", "2026-11-22 10:00")), 400, "INVALID_TIMESTAMP");
        refused(intake(with(account, "timestamp", "2026-11-22T12:00:00+02:00")), 400, "INVALID_TIMESTAMP"); // UTC only
        refused(intake(with(account, "timestamp", "2026-11-22t10:00:00z")), 400, "INVALID_TIMESTAMP");
        refused(intake(with(account, "metadata", "web")), 400, "INVALID_METADATA");
        refused(intake(List.of(event(account, 1))), 400, "INVALID_EVENT");
        refused(intake("null"), 400, "INVALID_EVENT");
        refused(intake("{\"account_id\": "), 400, "MALFORMED_JSON");
        refused(given().header("Authorization", INTERNAL).contentType(ContentType.JSON).post("/internal/v1/events")
                .then(), 400, "INVALID_EVENT");
        refused(given().header("Authorization", INTERNAL).contentType(ContentType.TEXT).body("account_id=x")
                .post("/internal/v1/events").then(), 415, "UNSUPPORTED_MEDIA_TYPE");
        refused(given().header("Authorization", INTERNAL).get("/internal/v1/events").then()
                .header("Allow", "OPTIONS, POST"), 405, "METHOD_NOT_ALLOWED");
        given().header("Authorization", OPERATOR).queryParam("account_id", account).get("/admin/v1/deliveries")
                .then().statusCode(200).body("size()", equalTo(0));
    }

    @Test
    void aBatchAnswersEachMistypedEventOnItsOwn() {
        String account = "refused-" + UUID.randomUUID();
        Map<String, Object> numberForUser = with(account, "user_id", 5);
        given().header("Authorization", INTERNAL).contentType(ContentType.JSON)
                .body("{\"events\": [" + json(numberForUser) + ", null, 4, " + json(with(account, "message_id", "x"))
                        + "]}")
                .post("/internal/v1/events/batch").then().statusCode(200)
                .body("results.status", equalTo(List.of(400, 400, 400, 400)))
                .body("results.error_code", equalTo(List.of("MISSING_FIELD", "INVALID_EVENT", "INVALID_EVENT",
                        "MISSING_FIELD")))
                .body("results[0].error_message", containsString("user_id"))
                .body("results[3].error_message", containsString("message_id"));
        refused(given().header("Authorization", INTERNAL).contentType(ContentType.JSON).body("{\"events\": 4}")
                .post("/internal/v1/events/batch").then(), 400, "INVALID_BATCH");
        refused(given().header("Authorization", INTERNAL).contentType(ContentType.JSON).body("{\"events\": [")
                .post("/internal/v1/events/batch").then(), 400, "MALFORMED_JSON");
        given().header("Authorization", OPERATOR).queryParam("account_id", account).get("/admin/v1/deliveries")
                .then().statusCode(200).body("size()", equalTo(0));
    }

    @Test
    void keysAreCheckedPerApi() {
        refused(given().contentType(ContentType.JSON).body(event("k", 1)).post("/internal/v1/events").then(), 401,
                "UNAUTHORIZED");
        refused(given().header("Authorization", "Bearer nope").contentType(ContentType.JSON).body(event("k", 1))
                .post("/internal/v1/events").then(), 401, "UNAUTHORIZED");
        refused(given().header("Authorization", OPERATOR).contentType(ContentType.JSON).body(event("k", 1))
                .post("/internal/v1/events").then(), 403, "FORBIDDEN");
        refused(given().header("Authorization", INTERNAL).get("/admin/v1/deliveries").then(), 403, "FORBIDDEN");
        refused(given().get("/admin/v1/deliveries/x/attempts").then(), 401, "UNAUTHORIZED");
        refused(given().header("Authorization", OPERATOR).get("/admin/v1/deliveries/no-such/attempts").then(), 404,
                "DELIVERY_NOT_FOUND");
        refused(given().header("Authorization", OPERATOR).get("/admin/v1/no-such-path").then(), 404, "NOT_FOUND");
        given().get("/platform/hooks/certificate/").then().statusCode(200);
    }

    /** The key is checked once the endpoint is matched, before its body: a call without one is refused unread. */
    @Test
    void aCallWithoutTheKeyIsRefusedBeforeItsBodyIsSent() throws IOException {
        String answer = exchange("POST /internal/v1/events HTTP/1.1\r\nHost: localhost\r\n"
                + "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{");
        assertTrue(answer.startsWith("HTTP/1.1 401"), answer);
        assertEquals("UNAUTHORIZED", body(answer).get("error_code").asText());
    }

    /** Over 256 KiB declared: refused by its length, before the body, with the error body. */
    @Test
    void aBodyOverTheLimitIsRefusedWithTheErrorBody() throws IOException {
        String answer = exchange("POST /internal/v1/events/batch HTTP/1.1\r\nHost: localhost\r\nAuthorization: "
                + INTERNAL + "\r\nContent-Type: application/json\r\nContent-Length: 300000\r\n\r\n{");
        assertTrue(answer.startsWith("HTTP/1.1 413"), answer);
        assertEquals("BODY_TOO_LARGE", body(answer).get("error_code").asText());
    }

    @Test
    void theOpenApiDocumentDeclaresTheBearerSchemeTheStatusesAndTheErrorBody() {
        given().accept(ContentType.JSON).get("/q/openapi").then().statusCode(200)
                .body("components.securitySchemes.bearer.scheme", equalTo("bearer"))
                .body("components.securitySchemes.bearer.description", containsString("hook.internal.api-key"))
                .body("components.schemas", hasKey("Error"))
                .body("paths.'/internal/v1/events'.post.responses.keySet()", hasItems("200", "202", "400", "401",
                        "403", "500"))
                .body("paths.'/internal/v1/events'.post.responses.'202'.content.'application/json'.example.event_id",
                        notNullValue())
                .body("paths.'/internal/v1/events'.post.responses.'400'.description", containsString("MISSING_FIELD"))
                .body("paths.'/internal/v1/events'.post.responses.'401'.content.'application/json'.schema.$ref",
                        equalTo("#/components/schemas/Error"))
                .body("paths.'/internal/v1/events'.post.security", notNullValue())
                .body("paths.'/internal/v1/events/batch'.post.responses.'400'.description",
                        containsString("INVALID_BATCH"))
                .body("paths.'/internal/v1/events/batch'.post.responses.'200'.description",
                        containsString("INVALID_REQUEST_ID"))
                .body("paths.'/admin/v1/deliveries'.get.responses.'400'.description",
                        containsString("INVALID_STATUS"))
                .body("paths.'/admin/v1/deliveries/{id}/retry'.post.responses.'409'.description",
                        containsString("DELIVERY_IN_FLIGHT"))
                .body("paths.'/admin/v1/accounts/{accountId}/endpoint/disable'.post.responses.'400'.description",
                        containsString("INVALID_REASON"))
                .body("paths.'/platform/hooks/certificate/'.get.security", equalTo(null))
                .body("components.schemas.IntakeEvent.properties.message_id.examples", notNullValue());
    }

    private String exchange(String request) throws IOException {
        try (Socket s = new Socket(base.getHost(), base.getPort())) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return new String(readHead(s.getInputStream()), StandardCharsets.UTF_8);
        }
    }

    /** The answer's head and its body (its Content-Length), without waiting for the connection to close. */
    private static byte[] readHead(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            head.append((char) b);
        }
        String h = head.toString().toLowerCase(java.util.Locale.ROOT);
        int at = h.indexOf("content-length:");
        int n = at < 0 ? 0 : Integer.parseInt(h.substring(at + 15, h.indexOf("\r\n", at)).trim());
        return (head + new String(in.readNBytes(n), StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8);
    }

    private static JsonNode body(String answer) throws IOException {
        return new ObjectMapper().readTree(answer.substring(answer.indexOf("\r\n\r\n") + 4));
    }

    private static String json(Object o) {
        try {
            return new ObjectMapper().writeValueAsString(o);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
