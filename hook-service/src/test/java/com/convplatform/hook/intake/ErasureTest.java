package com.convplatform.hook.intake;

import static com.convplatform.hook.delivery.HookDeliveryTest.INTERNAL;
import static com.convplatform.hook.delivery.HookDeliveryTest.OPERATOR;
import static com.convplatform.hook.delivery.HookDeliveryTest.account;
import static com.convplatform.hook.delivery.HookDeliveryTest.awaitDelivered;
import static com.convplatform.hook.delivery.HookDeliveryTest.event;
import static com.convplatform.hook.delivery.HookDeliveryTest.intake;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.convplatform.hook.HookPlatformResource;
import com.convplatform.hook.HookPlatformResource.Answer;
import com.convplatform.hook.QueueRows;
import com.convplatform.hook.delivery.HookDeliveryTest;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * upload-service's erasure of a user reaches here as the user's message ids: their deliveries leave the queue, the
 * history, the attempt log and the dead letters, whatever their state; the account's other messages stay; a second
 * call removes nothing more; the call needs the internal key.
 */
@QuarkusTest
@QuarkusTestResource(HookPlatformResource.class)
class ErasureTest {
    @Test
    void theUsersDeliveriesGoWhateverTheirStateAndTheOthersStay() {
        String account = account();
        String user = "erased" + System.nanoTime();
        for (long m = 1; m <= 3; m++) {
            intake(userEvent(account, m, m == 3 ? "someone-else" : user), 202);
        }
        awaitDelivered(account, 3);
        String dead = account();
        HookPlatformResource.script(dead, new Answer(500, 0, null), new Answer(500, 0, null),
                new Answer(500, 0, null), new Answer(500, 0, null));
        intake(userEvent(dead, 7, user), 202);
        await().atMost(Duration.ofSeconds(15))
                .until(() -> "DEAD".equals(HookDeliveryTest.delivery(dead).get("status")));
        given().header("Authorization", OPERATOR).post("/admin/v1/accounts/" + account + "/endpoint/disable").then()
                .statusCode(200);
        intake(userEvent(account, 4, user), 202); // held, in the queue

        given().header("Authorization", INTERNAL).contentType(ContentType.JSON)
                .body(Map.of("account_id", account, "message_ids", List.of(1, 2, 4))).post("/internal/v1/erasures")
                .then().statusCode(200).body("removed.delivery_queue", equalTo(1))
                .body("removed.delivery_history", equalTo(2)).body("removed.delivery_attempt", equalTo(2));
        given().header("Authorization", INTERNAL).contentType(ContentType.JSON)
                .body(Map.of("account_id", dead, "message_ids", List.of(7))).post("/internal/v1/erasures").then()
                .statusCode(200).body("removed.delivery_history", equalTo(1)).body("removed.dead_letter", equalTo(1))
                .body("removed.delivery_attempt", equalTo(4));

        given().header("Authorization", OPERATOR).queryParam("account_id", account).get("/admin/v1/deliveries").then()
                .statusCode(200).body("$", hasSize(1));
        given().header("Authorization", OPERATOR).queryParam("account_id", dead).get("/admin/v1/deliveries").then()
                .statusCode(200).body("$", hasSize(0));
        for (String table : List.of("delivery_queue", "delivery_history", "delivery_attempt", "dead_letter")) {
            assertEquals(0, QueueRows.count("select count(*) from " + table + " x where x::text like ?",
                    "%" + user + "%"), table + " still holds the user");
        }
        given().header("Authorization", INTERNAL).contentType(ContentType.JSON)
                .body(Map.of("account_id", account, "message_ids", List.of(1, 2, 4))).post("/internal/v1/erasures")
                .then().statusCode(200).body("removed.delivery_history", equalTo(0));
    }

    @Test
    void refusals() {
        given().contentType(ContentType.JSON).body(Map.of("account_id", "a", "message_ids", List.of(1)))
                .post("/internal/v1/erasures").then().statusCode(401);
        given().header("Authorization", OPERATOR).contentType(ContentType.JSON)
                .body(Map.of("account_id", "a", "message_ids", List.of(1))).post("/internal/v1/erasures").then()
                .statusCode(403).body("error_code", equalTo("FORBIDDEN"));
        given().header("Authorization", INTERNAL).contentType(ContentType.JSON).body(Map.of("message_ids", List.of(1)))
                .post("/internal/v1/erasures").then().statusCode(400).body("error_code", equalTo("MISSING_FIELD"));
    }

    private static Map<String, Object> userEvent(String account, long messageId, String user) {
        Map<String, Object> e = event(account, messageId);
        e.put("user_id", user);
        return e;
    }
}
