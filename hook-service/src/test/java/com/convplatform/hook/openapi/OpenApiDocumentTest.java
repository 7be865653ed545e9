package com.convplatform.hook.openapi;

import static com.convplatform.hook.delivery.HookDeliveryTest.INTERNAL;
import static com.convplatform.hook.delivery.HookDeliveryTest.OPERATOR;
import static com.convplatform.hook.delivery.HookDeliveryTest.event;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.emptyOrNullString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.convplatform.hook.HookPlatformResource;
import com.convplatform.testsupport.OpenApiDocument;
import com.fasterxml.jackson.databind.JsonNode;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;

/**
 * hook-service's OpenAPI document as Swagger UI shows it (issue 40): each error response's example carries a code the
 * operation lists and really answers, and "Try it out" sends no filter nobody typed.
 */
@QuarkusTest
@QuarkusTestResource(HookPlatformResource.class)
class OpenApiDocumentTest {
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
        assertTrue(checked.size() > 30, "checked " + checked);
    }

    @Test
    void theDeliveryListPrefillsNoFilter() {
        doc.checkNothingPrefilled();
        for (JsonNode p : doc.root().path("paths").path("/admin/v1/deliveries").path("get").path("parameters")) {
            assertTrue(p.path("example").isMissingNode() && p.path("schema").path("example").isMissingNode(),
                    p.toString());
        }
        String description = doc.root().path("components").path("securitySchemes").path("bearer")
                .path("description").asText();
        assertTrue(description.contains("OPERATOR_KEY in data/local/keys.env"), description);
    }

    /** For a representative set, the service really answers the example's code with the documented status. */
    @Test
    void theServiceAnswersTheExamplesCodes() {
        answers(given().header("Authorization", OPERATOR).queryParam("status", "LOST").get("/admin/v1/deliveries")
                .then(), "get", "/admin/v1/deliveries", 400);
        answers(given().get("/admin/v1/deliveries").then(), "get", "/admin/v1/deliveries", 401);
        answers(given().header("Authorization", INTERNAL).get("/admin/v1/deliveries").then(), "get",
                "/admin/v1/deliveries", 403);
        answers(given().header("Authorization", OPERATOR).get("/admin/v1/deliveries/" + UUID.randomUUID()).then(),
                "get", "/admin/v1/deliveries/{id}", 404);
        answers(given().header("Authorization", OPERATOR).post("/admin/v1/deliveries/" + UUID.randomUUID() + "/retry")
                .then(), "post", "/admin/v1/deliveries/{id}/retry", 404);
        Map<String, Object> noUser = event("openapi-" + UUID.randomUUID(), 1);
        noUser.remove("user_id");
        answers(given().header("Authorization", INTERNAL).contentType(ContentType.JSON).body(noUser)
                .post("/internal/v1/events").then(), "post", "/internal/v1/events", 400);
        answers(given().header("Authorization", OPERATOR).contentType(ContentType.JSON)
                .body(event("openapi-" + UUID.randomUUID(), 1)).post("/internal/v1/events").then(), "post",
                "/internal/v1/events", 403);
    }

    private void answers(ValidatableResponse r, String method, String path, int status) {
        String code = doc.exampleCode(method, path, status);
        r.statusCode(status).contentType(ContentType.JSON).body("error_code", equalTo(code))
                .body("error_message", not(emptyOrNullString()));
    }
}
