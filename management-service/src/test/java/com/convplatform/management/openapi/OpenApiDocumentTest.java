package com.convplatform.management.openapi;

import static com.convplatform.management.Fixtures.OPERATOR;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.emptyOrNullString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.convplatform.management.Fixtures;
import com.convplatform.testsupport.OpenApiDocument;
import com.fasterxml.jackson.databind.JsonNode;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;

/**
 * management-service's OpenAPI document as Swagger UI shows it (issue 40): each error response's example carries a code
 * the operation lists and really answers, "Try it out" sends nothing a person did not type, the signed operations say
 * how to sign outside the browser, and the Authorize dialog says where a local run keeps the operator key.
 */
@QuarkusTest
class OpenApiDocumentTest {
    static final String TOKEN = "/platform/management/token/issue";
    static final String CLIENTS = "/platform/management/clients";
    OpenApiDocument doc;

    @BeforeEach
    void read() {
        doc = OpenApiDocument.parse(given().queryParam("format", "json").get("/q/openapi").then().statusCode(200)
                .extract().asString());
    }

    @Test
    void everyOperationListsItsSuccess() {
        doc.checkSuccessesDocumented();
    }

    @Test
    void everyErrorResponseHasAnExampleOfACodeItsDescriptionLists() {
        Map<String, String> checked = doc.checkErrorExamples();
        assertTrue(checked.size() > 50, "checked " + checked);
        // not the operator key's UNAUTHORIZED everywhere: the signed API's refusals have their own
        assertFalse(checked.entrySet().stream().filter(e -> e.getKey().startsWith("POST " + TOKEN))
                .anyMatch(e -> e.getValue().equals("UNAUTHORIZED")), checked.toString());
        // the signed API's first check is the body's (then the certificate headers', then NOT_AUTHENTICATED)
        assertTrue(doc.exampleCode("post", TOKEN, 400).equals("MALFORMED_JSON"), doc.exampleCode("post", TOKEN, 400));
        assertTrue(doc.exampleCode("post", TOKEN, 429).equals("RATE_LIMITED"));
        assertTrue(doc.exampleCode("post", "/admin/v1/accounts", 409).equals("FQDN_TAKEN"));
    }

    @Test
    void tryItOutFillsInNothingAPersonDidNotType() {
        doc.checkNothingPrefilled();
        JsonNode certUrl = parameter(TOKEN, "SignatureCertChainUrl");
        assertTrue(certUrl.path("example").isMissingNode(), certUrl.toString());
        assertTrue(certUrl.path("description").asText().contains("https://client.example.com/client.api/chain.pem"));
        assertTrue(parameter(TOKEN, "SignatureCertUUID").path("example").isMissingNode());
        // the account search's example moved into the description, where nothing sends it
        assertTrue(parameter("/admin/v1/accounts", "q").path("description").asText().contains("Example: acme"));
    }

    @Test
    void theSignedOperationsSayHowToSignOutsideTheBrowserAndTheTimestampIsNotAFixedDate() {
        for (String path : new String[]{TOKEN, CLIENTS, "/jwt/issue"}) {
            String description = doc.root().path("paths").path(path).path("post").path("description").asText();
            assertTrue(description.contains("computed outside the browser"), path + ": " + description);
            assertTrue(description.contains("platform-cli sign --key"), description);
            assertTrue(description.contains("clients/"), description);
            assertTrue(description.contains("date -u +%Y-%m-%dT%H:%M:%SZ"), description);
        }
        for (String schema : new String[]{"TokenRequest", "ClientListRequest"}) {
            JsonNode timestamp = doc.root().path("components").path("schemas").path(schema).path("properties")
                    .path("timestamp");
            String example = timestamp.path("examples").path(0).asText(timestamp.path("example").asText());
            assertFalse(example.matches("\\d{4}-.*"), schema + " timestamp example is a date: " + example);
            assertTrue(example.contains("date -u"), example);
        }
    }

    @Test
    void theAuthorizeDialogSaysWhereALocalRunKeepsTheOperatorKey() {
        String description = doc.root().path("components").path("securitySchemes").path("bearer")
                .path("description").asText();
        assertTrue(description.contains("management.admin.api-key"), description);
        assertTrue(description.contains("OPERATOR_KEY in data/local/keys.env"), description);
    }

    /** For a representative set, the service really answers the example's code with the documented status. */
    @Test
    void theServiceAnswersTheExamplesCodes() {
        String fqdn = "examples-" + System.nanoTime() + ".example.com";
        String accountId = Fixtures.account(fqdn);
        String body = "{\"client_id\":\"x\",\"fqdn\":\"" + fqdn + "\",\"timestamp\":\"2026-01-01T00:00:00Z\"}";
        answers(signed(TOKEN, "{\"client_id\":").header("SignatureCertUUID", "00000000-0000-0000-0000-000000000000")
                .post(TOKEN + "/").then(), "post", TOKEN, 400);
        answers(signed(CLIENTS, "{\"fqdn\":").header("SignatureCertUUID", "00000000-0000-0000-0000-000000000000")
                .post(CLIENTS + "/").then(), "post", CLIENTS, 400);
        answers(given().contentType(ContentType.TEXT).body(body).post(TOKEN + "/").then(), "post", TOKEN, 415);
        answers(signed(TOKEN, "{\"pad\":\"" + "x".repeat(70 * 1024) + "\"}").post("/jwt/issue").then(), "post",
                "/jwt/issue", 413);
        answers(given().contentType(ContentType.JSON).body("{}").post("/admin/v1/accounts").then(), "post",
                "/admin/v1/accounts", 401);
        answers(given().header("Authorization", "Bearer test-internal-key").get("/admin/v1/accounts").then(), "get",
                "/admin/v1/accounts", 403);
        answers(given().header("Authorization", OPERATOR).contentType(ContentType.JSON).post("/admin/v1/accounts")
                .then(), "post", "/admin/v1/accounts", 400);
        answers(given().header("Authorization", OPERATOR).contentType(ContentType.JSON)
                .body(Map.of("name", "Again", "fqdn", fqdn, "business_id", "12", "webhook_url",
                        "https://" + fqdn + "/h"))
                .post("/admin/v1/accounts").then(), "post", "/admin/v1/accounts", 409);
        answers(given().header("Authorization", OPERATOR).get("/admin/v1/accounts/no-such-account").then(), "get",
                "/admin/v1/accounts/{accountId}", 404);
        answers(given().header("Authorization", OPERATOR).contentType(ContentType.JSON)
                .post("/admin/v1/accounts/" + accountId + "/clients").then(), "post",
                "/admin/v1/accounts/{accountId}/clients", 400);
    }

    private static io.restassured.specification.RequestSpecification signed(String path, String body) {
        return given().contentType(ContentType.JSON).body(body.getBytes(StandardCharsets.UTF_8))
                .header("Signature", "c2lnbmF0dXJl");
    }

    private void answers(ValidatableResponse r, String method, String path, int status) {
        String code = doc.exampleCode(method, path, status);
        r.statusCode(status).contentType(ContentType.JSON).body("error_code", equalTo(code))
                .body("error_message", not(emptyOrNullString()));
    }

    private JsonNode parameter(String path, String name) {
        for (JsonNode p : doc.root().path("paths").path(path)) {
            for (JsonNode param : p.path("parameters")) {
                if (param.path("name").asText().equals(name)) {
                    return param;
                }
            }
        }
        throw new AssertionError("no parameter " + name + " at " + path);
    }
}
