package com.convplatform.hook.http;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;

import java.util.Map;

import org.junit.jupiter.api.Test;

import com.convplatform.hook.HookPlatformResource;
import com.convplatform.hook.delivery.HookDeliveryTest;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;

/** With no key configured, intake and the operator API are closed to every caller; the certificate stays public. */
@QuarkusTest
@TestProfile(ClosedApisTest.NoKeys.class)
@QuarkusTestResource(HookPlatformResource.class)
class ClosedApisTest {
    public static class NoKeys implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("hook.internal.api-key", "", "hook.admin.api-key", "");
        }
    }

    @Test
    void everyCallIsRefusedWithTheSettingToConfigure() {
        RefusalShapeTest.refused(given().header("Authorization", "Bearer test-internal-key")
                .contentType(ContentType.JSON).body(HookDeliveryTest.event("closed", 1)).post("/internal/v1/events")
                .then().body("error_message", containsString("hook.internal.api-key")), 401, "API_DISABLED");
        RefusalShapeTest.refused(given().header("Authorization", "Bearer test-operator-key")
                .get("/admin/v1/deliveries").then().body("error_message", containsString("hook.admin.api-key")), 401,
                "API_DISABLED");
        given().get("/platform/hooks/certificate/").then().statusCode(200);
    }
}
