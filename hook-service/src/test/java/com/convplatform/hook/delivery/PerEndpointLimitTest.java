package com.convplatform.hook.delivery;

import static com.convplatform.hook.delivery.HookDeliveryTest.BACKGROUND;
import static com.convplatform.hook.delivery.HookDeliveryTest.INTERNAL;
import static com.convplatform.hook.delivery.HookDeliveryTest.OPERATOR;
import static com.convplatform.hook.delivery.HookDeliveryTest.account;
import static com.convplatform.hook.delivery.HookDeliveryTest.event;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.convplatform.hook.HookPlatformResource;
import com.convplatform.hook.HookPlatformResource.Answer;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;

/**
 * hook.delivery.per-endpoint (4 by default): at most four hooks of one endpoint in flight at once, the rest waiting
 * their turn. The receiver holds the first hooks until four are in flight, however slowly a loaded machine sends them,
 * so "four at once" is seen without a race. Its own application: the test profile's read time-out (1 s) would end a
 * held hook, and the freed turn would let a fifth through while the receiver still holds the first; here the hooks'
 * read time-out outlasts the receiver's hold (at most 30 s), and the lease outlasts such an attempt.
 */
@QuarkusTest
@TestProfile(PerEndpointLimitTest.LongReads.class)
@QuarkusTestResource(HookPlatformResource.class)
class PerEndpointLimitTest {
    public static class LongReads implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("hook.delivery.read-timeout", "PT40S", "hook.delivery.lease", "PT120S");
        }
    }

    @Test
    void atMostFourHooksAreInFlightToOneEndpointAndTheRestWait() {
        String account = account();
        HookPlatformResource.holdUntilInFlight(account, 4);
        // Once the four are let go each is still answered after half a second: a sender without the limit would send
        // the waiting ones meanwhile.
        Answer[] slow = new Answer[12];
        Arrays.fill(slow, new Answer(200, 500, null));
        HookPlatformResource.script(account, slow);
        // One batch: all twelve are due at once.
        List<Map<String, Object>> events = new ArrayList<>();
        for (int i = 1; i <= 12; i++) {
            events.add(event(account, 100 + i));
        }
        given().header("Authorization", INTERNAL).contentType(ContentType.JSON).body(Map.of("events", events))
                .post("/internal/v1/events/batch").then().statusCode(200)
                .body("results.status", equalTo(Collections.nCopies(12, 202)));
        await().atMost(BACKGROUND).until(() -> given().header("Authorization", OPERATOR)
                .queryParam("account_id", account).queryParam("status", "DELIVERED").get("/admin/v1/deliveries")
                .then().extract().jsonPath().getList("$").size() == 12);
        assertEquals(4, HookPlatformResource.mostInFlight(account),
                "hooks in flight at once to one endpoint (the receiver held them until four came, at most 30 s)");
        assertEquals(12, HookPlatformResource.received(account).size(), "each hook sent once");
    }
}
