package com.convplatform.hook.delivery;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import com.convplatform.hook.HookPlatformResource;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;

/** With the default (private networks not allowed), a webhook on loopback is never called. */
@QuarkusTest
@TestProfile(SsrfGuardTest.GuardOn.class)
@QuarkusTestResource(HookPlatformResource.class)
class SsrfGuardTest {
    public static class GuardOn implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("hook.delivery.allow-private-networks", "false");
        }
    }

    @Test
    void aLoopbackWebhookIsRefusedAndNeverCalled() throws Exception {
        String account = "ssrf-" + UUID.randomUUID();
        given().header("Authorization", "Bearer test-internal-key").contentType(ContentType.JSON)
                .body(HookDeliveryTest.event(account, 1)).post("/internal/v1/events").then().statusCode(202);
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            List<Map<String, Object>> list = given().header("Authorization", "Bearer test-operator-key")
                    .queryParam("account_id", account).get("/admin/v1/deliveries").then().extract().path("$");
            Object error = list.isEmpty() ? null : list.get(0).get("last_error");
            return error != null && error.toString().contains("refused by the SSRF guard");
        });
        // the refusal is recorded when the attempt has ended: no call can follow it
        assertTrue(HookPlatformResource.received(account).isEmpty(), "the receiver was called");
    }
}
