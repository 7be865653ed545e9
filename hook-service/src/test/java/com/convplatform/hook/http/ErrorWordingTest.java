package com.convplatform.hook.http;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

import com.convplatform.hook.HookPlatformResource;
import com.convplatform.hook.delivery.HookDeliveryTest;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * A request meant for another service says which (issue 40); a wrong operator key says where the key is kept, and is
 * counted.
 */
@QuarkusTest
@QuarkusTestResource(HookPlatformResource.class)
class ErrorWordingTest {
    @Test
    void aTokenRequestSentToHookServiceNamesManagementService() {
        String body = "{\"client_id\":\"c\",\"fqdn\":\"client.example.com\",\"timestamp\":\"2026-01-01T00:00:00Z\"}";
        for (String path : new String[]{"/platform/management/token/issue/", "/platform/management/token/issue",
                "/jwt/issue", "/platform/management/clients/"}) {
            given().contentType(ContentType.JSON).header("Signature", "c2ln").header("SignatureCertUUID", "x")
                    .body(body).post(path).then().statusCode(404).contentType(ContentType.JSON)
                    .body("error_code", equalTo("WRONG_SERVICE"))
                    .body("error_message", allOf(containsString("This is hook-service"),
                            containsString("send it to management-service"), containsString("8081")));
        }
        given().multiPart("auth_id", "demo").post("/v1.0/log_file_from_user/").then().statusCode(404)
                .body("error_code", equalTo("WRONG_SERVICE"))
                .body("error_message", containsString("send it to upload-service"));
        // its own paths are not sent elsewhere
        given().get("/platform/hooks/certificate/").then().statusCode(200);
    }

    @Test
    void aWrongOperatorKeySaysItIsNotTheConfiguredOne() {
        given().header("Authorization", "Bearer not-the-key").get("/admin/v1/deliveries").then().statusCode(401)
                .body("error_code", equalTo("UNAUTHORIZED"))
                .body("error_message", allOf(containsString("not the operator key configured on this service"),
                        containsString("hook.admin.api-key"), containsString("data/local/keys.env")));
        given().header("Authorization", "not-the-key").get("/admin/v1/deliveries").then().statusCode(401)
                .body("error_message", containsString("not of the form 'Bearer <key>'"));
    }

    /** A key refused at a keyed API is counted by role and reason; a missing or malformed header is not a key. */
    @Test
    void aRefusedKeyIsCounted() {
        double wrong = refusedKeys("operator", "UNAUTHORIZED");
        double otherRole = refusedKeys("operator", "FORBIDDEN");
        given().header("Authorization", "Bearer not-the-key").post("/admin/v1/accounts/x/replay-dead-letters").then()
                .statusCode(401);
        given().header("Authorization", "Bearer test-internal-key").get("/admin/v1/deliveries").then().statusCode(403)
                .body("error_code", equalTo("FORBIDDEN"));
        given().get("/admin/v1/deliveries").then().statusCode(401);
        assertEquals(wrong + 1, refusedKeys("operator", "UNAUTHORIZED"));
        assertEquals(otherRole + 1, refusedKeys("operator", "FORBIDDEN"));
    }

    private static double refusedKeys(String role, String reason) {
        return HookDeliveryTest.metric("platform_key_refusals_total{reason=\"" + reason + "\",role=\"" + role + "\"}");
    }
}
