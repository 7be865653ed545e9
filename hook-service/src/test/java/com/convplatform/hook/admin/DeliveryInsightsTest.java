package com.convplatform.hook.admin;

import static com.convplatform.hook.delivery.HookDeliveryTest.INTERNAL;
import static com.convplatform.hook.delivery.HookDeliveryTest.OPERATOR;
import static com.convplatform.hook.delivery.HookDeliveryTest.account;
import static com.convplatform.hook.delivery.HookDeliveryTest.awaitDelivered;
import static com.convplatform.hook.delivery.HookDeliveryTest.event;
import static com.convplatform.hook.delivery.HookDeliveryTest.intake;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.notNullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.convplatform.hook.HookPlatformResource;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/** The operator views behind the console: one delivery with its event, the filters and pages, and the summary. */
@QuarkusTest
@QuarkusTestResource(HookPlatformResource.class)
class DeliveryInsightsTest {
    private static List<Map<String, Object>> list(Map<String, ?> query) {
        return given().header("Authorization", OPERATOR).queryParams(query).get("/admin/v1/deliveries").then()
                .statusCode(200).extract().path("$");
    }

    @Test
    void oneDeliveryCarriesItsMessageIdPayloadAndRequestId() {
        String account = account();
        given().header("Authorization", INTERNAL).header("X-Request-Id", "insight-req-1").contentType(ContentType.JSON)
                .body(event(account, 4711)).post("/internal/v1/events").then().statusCode(202);
        awaitDelivered(account, 1);
        String id = (String) list(Map.of("account_id", account)).get(0).get("delivery_id");

        given().header("Authorization", OPERATOR).get("/admin/v1/deliveries/" + id).then().statusCode(200)
                .body("delivery_id", equalTo(id)).body("account_id", equalTo(account)).body("message_id", equalTo(4711))
                .body("status", equalTo("DELIVERED")).body("request_id", equalTo("insight-req-1"))
                .body("payload", containsString("\"message_id\":4711"))
                .body("payload", containsString("quick_replies"));
    }

    @Test
    void oneDeliveryIsRefusedWithoutTheOperatorKeyAndWhenUnknown() {
        given().get("/admin/v1/deliveries/nope").then().statusCode(401).body("error_code", equalTo("UNAUTHORIZED"));
        given().header("Authorization", INTERNAL).get("/admin/v1/deliveries/summary").then().statusCode(403)
                .body("error_code", equalTo("FORBIDDEN"));
        given().header("Authorization", OPERATOR).get("/admin/v1/deliveries/nope").then().statusCode(404)
                .body("error_code", equalTo("DELIVERY_NOT_FOUND"));
    }

    @Test
    void aMessageIsFoundByItsIdWithinItsAccount() {
        String account = account();
        intake(event(account, 1), 202);
        String second = intake(event(account, 2), 202);
        List<Map<String, Object>> found = list(Map.of("account_id", account, "message_id", 2));
        assertEquals(1, found.size());
        assertEquals(second, found.get(0).get("event_id"));
        assertEquals(List.of(), list(Map.of("account_id", account, "message_id", 3)), "a message never received");

        given().header("Authorization", OPERATOR).queryParam("message_id", 2).get("/admin/v1/deliveries").then()
                .statusCode(400).body("error_code", equalTo("ACCOUNT_ID_REQUIRED"));
    }

    @Test
    void timeFiltersAndPagesNeitherSkipNorRepeat() {
        String account = account();
        Instant before = Instant.now().minusSeconds(1);
        for (int i = 1; i <= 3; i++) {
            intake(event(account, i), 202);
        }
        assertEquals(3, list(Map.of("account_id", account, "created_after", before.toString())).size());
        assertEquals(List.of(), list(Map.of("account_id", account, "created_after",
                Instant.now().plusSeconds(60).toString())));

        List<String> seen = new ArrayList<>();
        Map<String, Object> last = null;
        for (int page = 0; page < 4; page++) {
            Map<String, Object> query = new java.util.HashMap<>(Map.of("account_id", account, "limit", 1));
            if (last != null) {
                query.put("created_before", last.get("created_at"));
                query.put("before_id", last.get("delivery_id"));
            }
            List<Map<String, Object>> rows = list(query);
            if (rows.isEmpty()) {
                break;
            }
            last = rows.get(0);
            seen.add((String) last.get("delivery_id"));
        }
        assertEquals(3, seen.size(), "pages " + seen);
        assertEquals(3, new HashSet<>(seen).size(), "a delivery repeated: " + seen);

        given().header("Authorization", OPERATOR).queryParam("created_before", "yesterday")
                .get("/admin/v1/deliveries").then().statusCode(400).body("error_code", equalTo("INVALID_TIME"))
                .body("error_message", containsString("created_before"));
    }

    @Test
    void theSummaryCountsByStatusAndListsTheDisabledEndpointsWithTheirHeldDeliveries() {
        String delivered = account();
        intake(event(delivered, 1), 202);
        awaitDelivered(delivered, 1);
        String held = account();
        given().header("Authorization", OPERATOR).contentType(ContentType.JSON).body(Map.of("reason", "maintenance"))
                .post("/admin/v1/accounts/" + held + "/endpoint/disable").then().statusCode(200);
        intake(event(held, 1), 202);

        given().header("Authorization", OPERATOR).get("/admin/v1/deliveries/summary").then().statusCode(200)
                .body("at", notNullValue()).body("last_hour.DELIVERED", greaterThanOrEqualTo(1))
                .body("last_day.DELIVERED", greaterThanOrEqualTo(1)).body("last_hour.DEAD", notNullValue())
                .body("held", greaterThanOrEqualTo(1)).body("pending", greaterThanOrEqualTo(1))
                .body("oldest_undelivered_at", notNullValue()).body("disabled_count", greaterThanOrEqualTo(1))
                .body("disabled_endpoints.account_id", hasItem(held))
                .body("disabled_endpoints.find { it.account_id == '" + held + "' }.disabled_reason",
                        equalTo("maintenance"))
                .body("disabled_endpoints.find { it.account_id == '" + held + "' }.held_deliveries", equalTo(1));

        given().header("Authorization", OPERATOR).post("/admin/v1/accounts/" + held + "/endpoint/enable").then()
                .statusCode(200);
        awaitDelivered(held, 1);
        given().header("Authorization", OPERATOR).get("/admin/v1/deliveries/summary").then().statusCode(200)
                .body("disabled_endpoints.account_id", org.hamcrest.Matchers.not(hasItem(held)));
    }

    @Test
    void noDeliveriesGiveAnEmptyList() {
        given().header("Authorization", OPERATOR).queryParam("account_id", account()).get("/admin/v1/deliveries")
                .then().statusCode(200).body("$", empty()).body("$", hasSize(0));
    }
}
