package com.convplatform.hook.delivery;

import static com.convplatform.hook.delivery.HookDeliveryTest.OPERATOR;
import static com.convplatform.hook.delivery.HookDeliveryTest.account;
import static com.convplatform.hook.delivery.HookDeliveryTest.awaitHooks;
import static com.convplatform.hook.delivery.HookDeliveryTest.delivery;
import static com.convplatform.hook.delivery.HookDeliveryTest.event;
import static com.convplatform.hook.delivery.HookDeliveryTest.intake;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.junit.jupiter.api.Test;

import com.convplatform.hook.HookPlatformResource;
import com.convplatform.hook.HookPlatformResource.Answer;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;

/**
 * The account lookup counts against the lease: a lookup that answers, but so late that the send could outlast the
 * delivery's lease, ends the attempt unsent (the platform's failure, retried with the URL then cached), so no other
 * replica can take the delivery while this one is still sending it. Its own application: a lease of 14 s, just over
 * the longest send (the name's lookup and each connection 3 s, the answer 1 s here: 7 s) and the 5 s margin.
 */
@QuarkusTest
@TestProfile(SlowLookupTest.ShortLease.class)
@QuarkusTestResource(HookPlatformResource.class)
class SlowLookupTest {
    public static class ShortLease implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("hook.delivery.lease", "PT14S", "hook.delivery.connect-timeout", "PT3S");
        }
    }

    @Test
    void aLookupThatLeavesTooLittleOfTheLeaseEndsTheAttemptUnsentAndTheNextOneDelivers() {
        String account = account();
        // 3 s for the answer, within the lookup's 5 s time-out: a success, but 12 s of the 14 s lease are needed after it.
        HookPlatformResource.LOOKUP_SCRIPT.put(account,
                new ConcurrentLinkedQueue<>(List.of(new Answer(200, 3000, null))));
        intake(event(account, 1), 202);

        List<HookPlatformResource.Received> hooks = awaitHooks(account, 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> "DELIVERED".equals(delivery(account).get("status")));
        assertEquals(1, hooks.size());
        assertEquals("2", hooks.get(0).header("X-Hook-Attempt"), "the first attempt was not sent");
        JsonPath attempts = given().header("Authorization", OPERATOR)
                .get("/admin/v1/deliveries/" + delivery(account).get("delivery_id") + "/attempts").then()
                .statusCode(200).extract().jsonPath();
        String error = attempts.getString("[0].error");
        assertTrue(
                error.startsWith("the account lookup took ") && error.contains("left too little of the lease (PT14S)")
                        && error.endsWith("not sent, retried later"),
                attempts.prettify());
        assertNull(attempts.get("[0].status_code"), "nothing reached the receiver");
        assertEquals(Map.of(), attempts.getMap("[0].signature_headers"), "nothing was signed for it");
        assertEquals(200, attempts.getInt("[1].status_code"));
        assertEquals(1, HookPlatformResource.received(account).size(), "the receiver got the hook once");
        // The platform's trouble, not the receiver's.
        given().header("Authorization", OPERATOR).get("/admin/v1/accounts/" + account + "/endpoint").then()
                .statusCode(200).body("consecutive_failures", equalTo(0)).body("enabled", equalTo(true));
    }
}
