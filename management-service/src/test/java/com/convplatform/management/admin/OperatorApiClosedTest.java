package com.convplatform.management.admin;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/** With no operator or internal key configured, those APIs refuse every call, whatever is sent. */
@QuarkusTest
@TestProfile(OperatorApiClosedTest.NoKeys.class)
class OperatorApiClosedTest {
    public static class NoKeys implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("management.admin.api-key", "", "management.internal.api-key", "");
        }
    }

    @Test
    void everyCallIsRefused() {
        for (String key : new String[]{"Bearer ", "Bearer test-operator-key", ""}) {
            given().header("Authorization", key).get("/admin/v1/accounts").then().statusCode(401)
                    .body("error_code", equalTo("API_DISABLED"));
        }
        given().header("Authorization", "Bearer test-internal-key").get("/internal/v1/accounts/x").then()
                .statusCode(401).body("error_code", equalTo("API_DISABLED"));
    }
}
