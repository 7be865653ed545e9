package com.convplatform.upload.openapi;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.emptyOrNullString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.convplatform.load.upload.PlatformStubs;
import com.convplatform.testsupport.OpenApiDocument;
import com.convplatform.upload.PlatformStubsResource;
import com.fasterxml.jackson.databind.JsonNode;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;

/**
 * upload-service's OpenAPI document as Swagger UI shows it (issue 40): each error response's example carries a code the
 * operation lists and really answers, the form sends no message_body nobody typed, and the client-id header is a
 * string (a UUID), not "any".
 */
@QuarkusTest
@QuarkusTestResource(PlatformStubsResource.class)
class OpenApiDocumentTest {
    static final String UPLOAD = "/v1.0/log_file_from_user/";
    OpenApiDocument doc;
    String path;

    @BeforeEach
    void read() {
        doc = OpenApiDocument.parse(given().queryParam("format", "json").get("/q/openapi").then().statusCode(200)
                .extract().asString());
        path = doc.root().path("paths").has(UPLOAD) ? UPLOAD : "/v1.0/log_file_from_user";
    }

    @Test
    void everyOperationListsItsSuccess() {
        doc.checkSuccessesDocumented();
    }

    @Test
    void everyErrorResponseHasAnExampleOfACodeItsDescriptionLists() {
        Map<String, String> checked = doc.checkErrorExamples();
        assertTrue(checked.size() > 20, "checked " + checked);
        assertEquals("FILE_TOO_LARGE", doc.exampleCode("post", path, 413));
    }

    @Test
    void theFormSendsNothingNobodyTypedAndClientIdIsAString() {
        doc.checkNothingPrefilled();
        JsonNode clientId = null;
        for (JsonNode p : doc.root().path("paths").path(path).path("post").path("parameters")) {
            if (p.path("name").asText().equals("client-id")) {
                clientId = p;
            }
        }
        assertTrue(clientId != null, "no client-id parameter");
        assertEquals("string", clientId.path("schema").path("type").asText(), clientId.toString());
        assertEquals("uuid", clientId.path("schema").path("format").asText(), clientId.toString());
        String description = doc.root().path("components").path("securitySchemes").path("bearer")
                .path("description").asText();
        assertTrue(description.contains("OPERATOR_KEY in data/local/keys.env"), description);
    }

    /** For a representative set, the service really answers the example's code with the documented status. */
    @Test
    void theServiceAnswersTheExamplesCodes() {
        byte[] png = new byte[2000];
        System.arraycopy(new byte[]{(byte) 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A}, 0, png, 0, 8);
        answers(given().multiPart("auth_id", "user42").post(UPLOAD).then(), "post", path, 401);
        answers(given().header("Authorization", "Bearer " + PlatformStubs.token()).header("client-id", "client-1")
                .multiPart("auth_id", "not valid!").multiPart("business_id", "1001").multiPart("message_type", "1")
                .multiPart("file", "a.png", png, "image/png").post(UPLOAD).then(), "post", path, 400);
        answers(given().header("Authorization", "Bearer " + PlatformStubs.token()).header("client-id", "client-1")
                .multiPart("auth_id", "user42").multiPart("business_id", "999999").multiPart("message_type", "1")
                .multiPart("file", "a.png", png, "image/png").post(UPLOAD).then(), "post", path, 403);
        answers(given().header("Authorization", "Bearer " + PlatformStubs.token()).header("client-id", "client-1")
                .contentType(ContentType.JSON).body("{}").post(UPLOAD).then(), "post", path, 415);
        answers(given().contentType(ContentType.JSON).body("{}").post("/admin/v1/users").then(), "post",
                "/admin/v1/users", 401);
        answers(given().header("Authorization", "Bearer test-operator-key").contentType(ContentType.JSON)
                .body(Map.of("auth_id", "not valid!", "business_id", "1001")).post("/admin/v1/users").then(), "post",
                "/admin/v1/users", 400);
    }

    private void answers(ValidatableResponse r, String method, String at, int status) {
        String code = doc.exampleCode(method, at, status);
        r.statusCode(status).contentType(ContentType.JSON).body("error_code", equalTo(code))
                .body("error_message", not(emptyOrNullString()));
    }
}
