package com.convplatform.hook.delivery;

import static com.convplatform.hook.HookPlatformResource.received;
import static com.convplatform.hook.delivery.HookDeliveryTest.OPERATOR;
import static com.convplatform.hook.delivery.HookDeliveryTest.account;
import static com.convplatform.hook.delivery.HookDeliveryTest.delivery;
import static com.convplatform.hook.delivery.HookDeliveryTest.event;
import static com.convplatform.hook.delivery.HookDeliveryTest.intake;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.convplatform.hook.HookPlatformResource;
import com.convplatform.hook.HookPlatformResource.Answer;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;

/**
 * The endpoint rule (tests: disabled after at least 6 failed attempts in a row spanning at least 1 s), the operator's
 * disable and enable, and that a disabled endpoint's deliveries are held, never lost, and delivered once it is enabled.
 */
@QuarkusTest
@QuarkusTestResource(HookPlatformResource.class)
class EndpointDisableTest {

    static ValidatableResponse endpoint(String account) {
        return given().header("Authorization", OPERATOR).get("/admin/v1/accounts/" + account + "/endpoint").then()
                .statusCode(200);
    }

    static boolean enabled(String account) {
        return endpoint(account).extract().path("enabled");
    }

    @Test
    void anEndpointThatKeepsFailingIsDisabledByTheRuleAndItsDeliveriesAreHeldUntilEnabled() throws Exception {
        String account = account();
        Answer[] failures = new Answer[200];
        java.util.Arrays.fill(failures, new Answer(500, 0, null));
        HookPlatformResource.script(account, failures);
        long id = 1;
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (enabled(account)) {
            assertTrue(System.nanoTime() < deadline, "the rule never disabled the failing endpoint");
            intake(event(account, id++), 202);
            Thread.sleep(150);
        }
        endpoint(account).body("disabled_by", equalTo("rule")).body("consecutive_failures", greaterThanOrEqualTo(6))
                .body("failing_since", notNullValue()).body("disabled_reason", containsString("in a row failed"));

        // Held: a new event is accepted and stored but not attempted while the endpoint is disabled.
        Thread.sleep(500); // attempts already in flight when it was disabled finish
        int before = received(account).size();
        intake(event(account, 1000), 202);
        Thread.sleep(1200);
        assertEquals(before, received(account).size(), "a disabled endpoint received a hook");
        long held = ((Number) endpoint(account).extract().path("held_deliveries")).longValue();
        assertTrue(held >= 1, "the new delivery is held");

        // The receiver is fixed and the operator enables the endpoint: every held delivery goes out.
        HookPlatformResource.SCRIPT.remove(account);
        given().header("Authorization", OPERATOR).post("/admin/v1/accounts/" + account + "/endpoint/enable").then()
                .statusCode(200).body("enabled", equalTo(true)).body("consecutive_failures", equalTo(0))
                .body("disabled_at", nullValue());
        await().atMost(Duration.ofSeconds(10)).until(() -> ((Number) endpoint(account).extract()
                .path("held_deliveries")).longValue() == 0);
        assertTrue(received(account).size() >= before + held);
        await().atMost(Duration.ofSeconds(5)).until(() -> "DELIVERED".equals(delivery(account).get("status")));
    }

    @Test
    void theOperatorDisablesAndEnablesAnEndpointByHand() throws Exception {
        String other = account();
        given().header("Authorization", OPERATOR).post("/admin/v1/accounts/" + other + "/endpoint/disable").then()
                .statusCode(200).body("enabled", equalTo(false))
                .body("disabled_reason", equalTo("disabled by an operator"));
        String account = account();
        endpoint(account).body("enabled", equalTo(true)).body("consecutive_failures", equalTo(0))
                .body("held_deliveries", equalTo(0));
        given().header("Authorization", OPERATOR).contentType(ContentType.JSON)
                .body(Map.of("reason", "receiver under maintenance"))
                .post("/admin/v1/accounts/" + account + "/endpoint/disable").then().statusCode(200)
                .body("enabled", equalTo(false)).body("disabled_by", equalTo("operator"))
                .body("disabled_reason", equalTo("receiver under maintenance")).body("disabled_at", notNullValue());
        intake(event(account, 1), 202);
        Thread.sleep(1000);
        assertEquals(0, received(account).size());
        assertEquals("PENDING", delivery(account).get("status"));
        assertEquals(0, delivery(account).get("attempts"));
        endpoint(account).body("held_deliveries", equalTo(1));

        given().header("Authorization", OPERATOR).post("/admin/v1/accounts/" + account + "/endpoint/enable").then()
                .statusCode(200).body("enabled", equalTo(true));
        await().atMost(Duration.ofSeconds(10)).until(() -> "DELIVERED".equals(delivery(account).get("status")));
        assertEquals(1, received(account).size());
    }

    @Test
    void endpointCallsNeedTheOperatorKeyAndValidInput() {
        String account = account();
        given().get("/admin/v1/accounts/" + account + "/endpoint").then().statusCode(401)
                .body("error_code", equalTo("UNAUTHORIZED"));
        given().post("/admin/v1/accounts/" + account + "/endpoint/disable").then().statusCode(401);
        given().post("/admin/v1/accounts/" + account + "/endpoint/enable").then().statusCode(401);
        given().header("Authorization", OPERATOR).contentType(ContentType.JSON).body(Map.of("reason", "x".repeat(501)))
                .post("/admin/v1/accounts/" + account + "/endpoint/disable").then().statusCode(400)
                .body("error_code", equalTo("INVALID_REASON"));
        given().header("Authorization", OPERATOR).post("/admin/v1/accounts/" + "a".repeat(65) + "/endpoint/disable")
                .then().statusCode(400).body("error_code", equalTo("INVALID_ACCOUNT_ID"));
        given().header("Authorization", OPERATOR).contentType(ContentType.JSON).body("{\"reason\": 4")
                .post("/admin/v1/accounts/" + account + "/endpoint/disable").then().statusCode(400)
                .body("error_code", equalTo("MALFORMED_JSON"));
        endpoint(account).body("enabled", equalTo(true));
    }
}
