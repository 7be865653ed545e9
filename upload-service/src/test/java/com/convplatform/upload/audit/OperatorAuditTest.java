package com.convplatform.upload.audit;

import static com.convplatform.upload.message.UploadTest.PATH;
import static com.convplatform.upload.message.UploadTest.PNG;
import static com.convplatform.upload.message.UploadTest.authed;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.convplatform.load.upload.PlatformStubs;
import com.convplatform.support.audit.OperatorAudit;
import com.convplatform.upload.PlatformStubsResource;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * upload-service's operator actions on the audit trail. An upload user's auth_id is personal data that an erasure must
 * be able to remove, and the trail is append-only: so the trail names a user by the hash of their auth_id only, in its
 * path and its target. An erasure is recorded as asked by the operator the console names, and hook-service is told who.
 */
@QuarkusTest
@QuarkusTestResource(PlatformStubsResource.class)
class OperatorAuditTest {
    private static final String OPERATOR = "Bearer test-operator-key";

    static List<Map<String, Object>> newest(int n) {
        return given().header("Authorization", OPERATOR).get("/admin/v1/audit?limit=" + n).then().statusCode(200)
                .extract().jsonPath().getList("$");
    }

    @Test
    void aUserIsNamedOnTheTrailByTheHashOfTheirAuthIdOnly() {
        String authId = "audit" + System.nanoTime();
        given().header("Authorization", OPERATOR).header("X-Operator", "erin").contentType(ContentType.JSON)
                .body(Map.of("auth_id", authId, "business_id", "1001")).post("/admin/v1/users").then()
                .statusCode(201);
        Map<String, Object> registered = newest(1).get(0);
        assertEquals("POST /admin/v1/users", registered.get("action"));
        assertEquals("business_id=1001, authId=" + OperatorAudit.personal(authId), registered.get("target"));

        given().header("Authorization", OPERATOR).header("X-Operator", "erin")
                .delete("/admin/v1/users/1001/" + authId).then().statusCode(204);
        given().header("Authorization", OPERATOR).delete("/admin/v1/users/1001/" + authId).then().statusCode(404)
                .body("error_code", equalTo("USER_NOT_FOUND"));
        List<Map<String, Object>> trail = newest(2);
        Map<String, Object> deleted = trail.get(1);
        Map<String, Object> missing = trail.get(0);
        assertEquals("DELETE /admin/v1/users/{businessId}/{authId}", deleted.get("action"));
        assertEquals("/admin/v1/users/1001/" + OperatorAudit.personal(authId), deleted.get("path"));
        assertEquals("businessId=1001, authId=" + OperatorAudit.personal(authId), deleted.get("target"));
        assertEquals("erin", deleted.get("operator"));
        assertEquals(204, deleted.get("status"));
        assertEquals("USER_NOT_FOUND", missing.get("outcome"));
        assertEquals(404, missing.get("status"));
        for (Map<String, Object> action : newest(3)) {
            assertFalse(action.toString().contains(authId), action.toString());
        }
    }

    @Test
    void anErasureIsAskedForByTheOperatorTheConsoleNamesAndHookServiceIsToldWho() {
        String authId = "auditerase" + System.nanoTime();
        given().header("Authorization", OPERATOR).contentType(ContentType.JSON)
                .body(Map.of("auth_id", authId, "business_id", "1001")).post("/admin/v1/users").then()
                .statusCode(201);
        authed().multiPart("auth_id", authId).multiPart("business_id", "1001").multiPart("message_type", "1")
                .multiPart("file", "a.png", PNG, "image/png").post(PATH).then().statusCode(200);
        int calls = PlatformStubs.ERASURE_OPERATORS.size();
        String id = given().header("Authorization", OPERATOR).header("X-Operator", "frank@example.org")
                .contentType(ContentType.JSON).body(Map.of("business_id", "1001", "auth_id", authId))
                .post("/admin/v1/erasures").then().statusCode(201).body("requested_by", equalTo("frank@example.org"))
                .extract().path("erasure_id");
        assertEquals("frank@example.org",
                PlatformStubs.ERASURE_OPERATORS.stream().skip(calls).findFirst().orElseThrow());

        Map<String, Object> erased = newest(1).get(0);
        assertEquals("POST /admin/v1/erasures", erased.get("action"));
        assertEquals("erasure_id=" + id, erased.get("target"));
        assertEquals("frank@example.org", erased.get("operator"));
        assertEquals("operator-key", erased.get("credential"));
        assertEquals("ok", erased.get("outcome"));
        assertFalse(erased.toString().contains(authId), erased.toString());
    }
}
