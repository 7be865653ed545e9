package com.convplatform.hook.delivery;

import static com.convplatform.hook.HookPlatformResource.LOOKUP_SCRIPT;
import static com.convplatform.hook.HookPlatformResource.lookups;
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
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import com.convplatform.hook.HookPlatformResource;
import com.convplatform.hook.HookPlatformResource.Answer;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;

/**
 * management-service failing, slow or down: the account lookup is retried at once (twice, with backoff), then the
 * delivery is recorded as the platform's failure and retried on its schedule, never lost and never counted against
 * the receiver's endpoint; once lookups keep failing the circuit breaker stops calling management-service for a
 * while. Its own application (profile), so the breaker's state stays out of the other tests.
 */
@QuarkusTest
@TestProfile(ManagementOutageTest.Outage.class)
@QuarkusTestResource(HookPlatformResource.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ManagementOutageTest {
    public static class Outage implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("hook.delivery.retry-schedule", "PT1S,PT1S,PT1S,PT2S,PT2S,PT2S,PT2S,PT2S,PT2S,PT2S",
                    "quarkus.rest-client.management.read-timeout", "500", "hook.management.cache-ttl", "PT4S");
        }
    }

    static void lookupAnswers(String account, Answer... answers) {
        LOOKUP_SCRIPT.put(account, new ConcurrentLinkedQueue<>(Arrays.asList(answers)));
    }

    static JsonPath attempts(String account) {
        return given().header("Authorization", OPERATOR)
                .get("/admin/v1/deliveries/" + delivery(account).get("delivery_id") + "/attempts").then()
                .statusCode(200).extract().jsonPath();
    }

    @Test
    @Order(0)
    void foundAndUnknownAccountsAreCachedForTheTimeToLive() throws Exception {
        String account = account();
        intake(event(account, 1), 202);
        awaitHooks(account, 1);
        intake(event(account, 2), 202);
        awaitHooks(account, 2);
        assertEquals(1, lookups(account), "the second delivery used the cached webhook URL");
        // hook.management.cache-ttl is PT4S here: long enough that a loaded build machine still finds the entries
        // above and below cached, short enough to wait out
        Thread.sleep(4500);
        intake(event(account, 3), 202);
        awaitHooks(account, 3);
        assertEquals(2, lookups(account), "looked up again once the entry had expired");

        String gone = account();
        lookupAnswers(gone, new Answer(404, 0, null), new Answer(404, 0, null));
        intake(event(gone, 1), 202);
        await().atMost(Duration.ofSeconds(5)).until(() -> "DEAD".equals(delivery(gone).get("status")));
        intake(event(gone, 2), 202);
        await().atMost(Duration.ofSeconds(5)).until(() -> given().header("Authorization", OPERATOR)
                .queryParam("account_id", gone).queryParam("status", "DEAD").get("/admin/v1/deliveries").then()
                .extract().jsonPath().getList("$").size() == 2);
        assertEquals(1, lookups(gone), "an unknown account is cached too");
    }

    @Test
    @Order(1)
    void aFailingLookupIsRetriedThenTheDeliveryIsRetriedLaterAndNotHeldAgainstTheEndpoint() {
        String account = account();
        lookupAnswers(account, new Answer(503, 0, null), new Answer(503, 0, null), new Answer(503, 0, null));
        intake(event(account, 1), 202);
        HookPlatformResource.Received hook = awaitHooks(account, 1).get(0);
        assertEquals("2", hook.header("X-Hook-Attempt"), "the first attempt could not look the account up");
        assertEquals(4, lookups(account), "one lookup and two retries for the first attempt, one for the second");
        JsonPath attempts = attempts(account);
        assertEquals(Arrays.asList(null, 200), attempts.getList("status_code"));
        assertTrue(attempts.getString("[0].error").startsWith("account lookup failed"), attempts.prettify());
        await().atMost(Duration.ofSeconds(5)).until(() -> "DELIVERED".equals(delivery(account).get("status")));
        given().header("Authorization", OPERATOR).get("/admin/v1/accounts/" + account + "/endpoint").then()
                .statusCode(200).body("consecutive_failures", equalTo(0)).body("enabled", equalTo(true));
    }

    @Test
    @Order(2)
    void aLookupThatOutlastsItsTimeOutIsAFailureToo() {
        String account = account();
        Answer slow = new Answer(200, 1500, null);
        lookupAnswers(account, slow, slow, slow);
        intake(event(account, 1), 202);
        // Delivered at a later attempt. The failures of the tests before may have left the breaker open, so the first
        // attempts may fail on it; the attempt that met the slow answers failed on their time-out.
        awaitHooks(account, 1);
        List<String> errors = attempts(account).getList("error", String.class);
        assertTrue(errors.stream().anyMatch(e -> e != null && e.startsWith("account lookup failed")
                && e.toLowerCase().contains("timeout")), errors.toString());
    }

    @Test
    @Order(3)
    void whileLookupsKeepFailingTheBreakerStopsCallingAndNothingIsLost() throws Exception {
        List<String> accounts = new ArrayList<>();
        Answer[] failing = new Answer[100];
        Arrays.fill(failing, new Answer(500, 0, null));
        for (int i = 0; i < 4; i++) {
            String account = account();
            accounts.add(account);
            lookupAnswers(account, failing);
            intake(event(account, 1), 202);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> accounts.stream()
                .anyMatch(a -> attempts(a).getList("error", String.class).stream()
                        .anyMatch(e -> e != null && e.contains("circuit breaker is open"))));
        int calls = accounts.stream().mapToInt(HookPlatformResource::lookups).sum();
        Thread.sleep(2000);
        assertEquals(calls, accounts.stream().mapToInt(HookPlatformResource::lookups).sum(),
                "the open breaker let lookups through");
        accounts.forEach(LOOKUP_SCRIPT::remove); // management-service is back
        for (String account : accounts) {
            awaitHooks(account, 1);
            await().atMost(Duration.ofSeconds(10)).until(() -> "DELIVERED".equals(delivery(account).get("status")));
            given().header("Authorization", OPERATOR).get("/admin/v1/accounts/" + account + "/endpoint").then()
                    .statusCode(200).body("consecutive_failures", equalTo(0));
        }
    }
}
