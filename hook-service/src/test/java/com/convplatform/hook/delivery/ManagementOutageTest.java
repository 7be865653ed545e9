package com.convplatform.hook.delivery;

import static com.convplatform.hook.HookPlatformResource.LOOKUP_SCRIPT;
import static com.convplatform.hook.HookPlatformResource.lookupTimes;
import static com.convplatform.hook.HookPlatformResource.lookups;
import static com.convplatform.hook.delivery.HookDeliveryTest.BACKGROUND;
import static com.convplatform.hook.delivery.HookDeliveryTest.OPERATOR;
import static com.convplatform.hook.delivery.HookDeliveryTest.account;
import static com.convplatform.hook.delivery.HookDeliveryTest.awaitHooks;
import static com.convplatform.hook.delivery.HookDeliveryTest.delivery;
import static com.convplatform.hook.delivery.HookDeliveryTest.event;
import static com.convplatform.hook.delivery.HookDeliveryTest.intake;
import static com.convplatform.hook.delivery.HookDeliveryTest.metric;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.convplatform.hook.HookPlatformResource;
import com.convplatform.hook.HookPlatformResource.Answer;
import com.convplatform.testsupport.LogCapture;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import io.smallrye.faulttolerance.api.CircuitBreakerMaintenance;

/**
 * management-service failing, slow or down: the account lookup is retried at once (twice, with backoff), then the
 * delivery is recorded as the platform's failure and retried on its schedule, never lost and never counted against
 * the receiver's endpoint; once lookups keep failing the circuit breaker stops calling management-service for a
 * while. Its own application (profile), so the breaker's state stays out of the other tests; each test starts with
 * the breaker closed and its window of calls empty, whatever the tests before it left.
 */
@QuarkusTest
@TestProfile(ManagementOutageTest.Outage.class)
@QuarkusTestResource(HookPlatformResource.class)
class ManagementOutageTest {
    /**
     * The least time between an attempt's last lookup and the next attempt's first: the retry schedule's PT1S less its
     * jitter (20 %), with a margin; a retry at once comes after @Retry's backoff (100 ms, plus or minus 50, doubled).
     */
    static final Duration NEXT_ATTEMPT = Duration.ofMillis(750);

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

    /**
     * When each lookup of the account began: a call that came within 2.5 s of the one before is that lookup's retry
     * (a time-out of 500 ms here, then @Retry's backoff; on a loaded machine a lookup can time out and be retried).
     */
    static List<Long> lookupsWithTheirRetries(String account) {
        List<Long> starts = new java.util.ArrayList<>();
        long previous = Long.MIN_VALUE;
        for (long t : HookPlatformResource.lookupTimes(account)) {
            if (starts.isEmpty() || t - previous > Duration.ofMillis(2500).toNanos()) {
                starts.add(t);
            }
            previous = t;
        }
        return starts;
    }

    /**
     * Each lookup of the account began at least the cache's time to live (PT4S here) after the one before: the
     * deliveries in between used the cached answer. (Counting lookups instead failed on a machine so loaded that the
     * second delivery came after the time to live.)
     */
    static void lookedUpAtMostOncePerTimeToLive(String account) {
        List<Long> at = lookupsWithTheirRetries(account);
        for (int i = 1; i < at.size(); i++) {
            Duration gap = Duration.ofNanos(at.get(i) - at.get(i - 1));
            assertTrue(gap.compareTo(Duration.ofSeconds(4)) >= 0, account + " was looked up again after "
                    + gap.toMillis() + " ms, within the cache's time to live (PT4S)");
        }
    }

    static long refusedByTheBreaker(String account) {
        return attempts(account).getList("error", String.class).stream()
                .filter(e -> e != null && e.contains("circuit breaker is open")).count();
    }

    @Test
    void foundAndUnknownAccountsAreCachedForTheTimeToLive() {
        String account = account();
        intake(event(account, 1), 202);
        awaitHooks(account, 1);
        intake(event(account, 2), 202);
        awaitHooks(account, 2);
        // hook.management.cache-ttl is PT4S here. One more event every half second until one is looked up again: not
        // before the entry's time to live has passed, and then once; every delivery in between used the cached URL.
        AtomicLong messageId = new AtomicLong(3);
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(500)).until(() -> {
            long m = messageId.getAndIncrement();
            intake(event(account, m), 202);
            awaitHooks(account, (int) m);
            return lookupsWithTheirRetries(account).size() > 1;
        });
        assertEquals(2, lookupsWithTheirRetries(account).size(), "looked up again once the entry had expired");
        lookedUpAtMostOncePerTimeToLive(account);
        assertTrue(HookPlatformResource.received(account).size() > 2, "no delivery used the cached webhook URL");

        String gone = account();
        lookupAnswers(gone, new Answer(404, 0, null), new Answer(404, 0, null));
        intake(event(gone, 1), 202);
        await().atMost(BACKGROUND).until(() -> "DEAD".equals(delivery(gone).get("status")));
        intake(event(gone, 2), 202);
        await().atMost(BACKGROUND).until(() -> given().header("Authorization", OPERATOR)
                .queryParam("account_id", gone).queryParam("status", "DEAD").get("/admin/v1/deliveries").then()
                .extract().jsonPath().getList("$").size() == 2);
        lookedUpAtMostOncePerTimeToLive(gone); // an unknown account is cached too
    }

    /**
     * The first attempt's lookup and its two retries at once take the three failures: the next attempt, on the retry
     * schedule, is delivered. A lookup of a loaded machine may outlast its time-out (500 ms here) and be retried too:
     * one lookup more, or now and then an attempt more, but never the four attempts that one failure per attempt takes.
     */
    @Test
    void aFailingLookupIsRetriedThenTheDeliveryIsRetriedLaterAndNotHeldAgainstTheEndpoint() {
        String account = account();
        lookupAnswers(account, new Answer(503, 0, null), new Answer(503, 0, null), new Answer(503, 0, null));
        intake(event(account, 1), 202);
        HookPlatformResource.Received hook = awaitHooks(account, 1).get(0);
        await().atMost(BACKGROUND).until(() -> "DELIVERED".equals(delivery(account).get("status")));
        JsonPath attempts = attempts(account);
        List<Integer> codes = attempts.getList("status_code");
        List<String> errors = attempts.getList("error", String.class);
        int delivered = codes.size();
        assertTrue(delivered == 2 || delivered == 3, "the first attempt could not look the account up, and the"
                + " failures were not met one per attempt: " + attempts.prettify());
        assertEquals(String.valueOf(delivered), hook.header("X-Hook-Attempt"), "only the delivered attempt sent");
        assertEquals(200, codes.get(delivered - 1), attempts.prettify());
        for (int i = 0; i < delivered - 1; i++) {
            assertNull(codes.get(i), attempts.prettify());
            assertTrue(errors.get(i).startsWith("account lookup failed"), attempts.prettify());
        }
        assertTrue(LOOKUP_SCRIPT.get(account).isEmpty(), "the three failures were all given");
        List<Long> at = lookupTimes(account);
        assertTrue(at.size() >= 4, "one lookup and two retries for the first attempt, one for the next: " + at.size());
        // the first three were the first attempt's: the fourth, the next attempt's, came on the retry schedule
        Duration gap = Duration.ofNanos(at.get(3) - at.get(2));
        assertTrue(gap.compareTo(NEXT_ATTEMPT) >= 0, "the fourth lookup came " + gap.toMillis() + " ms after the"
                + " third: the first attempt's lookup was not retried twice at once");
        given().header("Authorization", OPERATOR).get("/admin/v1/accounts/" + account + "/endpoint").then()
                .statusCode(200).body("consecutive_failures", equalTo(0)).body("enabled", equalTo(true));
    }

    @Test
    void aLookupThatOutlastsItsTimeOutIsAFailureToo() {
        String account = account();
        Answer slow = new Answer(200, 1500, null);
        lookupAnswers(account, slow, slow, slow);
        intake(event(account, 1), 202);
        // Delivered at a later attempt. What shows each slow answer was a failure: a fourth lookup came (a slow answer
        // taken as a success would have been cached, and delivered at once).
        awaitHooks(account, 1);
        await().atMost(BACKGROUND).until(() -> "DELIVERED".equals(delivery(account).get("status")));
        List<String> errors = attempts(account).getList("error", String.class);
        assertTrue(HookPlatformResource.LOOKUP_SCRIPT.get(account).isEmpty(), "the slow answers were all given");
        assertTrue(lookups(account) >= 4, "a slow answer was used: " + lookups(account) + " lookups, " + errors);
        assertTrue(errors.size() >= 2 && errors.subList(0, errors.size() - 1).stream()
                .allMatch(e -> e != null && e.startsWith("account lookup failed")), errors.toString());
    }

    @Test
    void whileLookupsKeepFailingTheBreakerStopsCallingAndNothingIsLost() {
        List<String> accounts = new ArrayList<>();
        Answer[] failing = new Answer[100];
        Arrays.fill(failing, new Answer(500, 0, null));
        for (int i = 0; i < 4; i++) {
            String account = account();
            accounts.add(account);
            lookupAnswers(account, failing);
            intake(event(account, 1), 202);
        }
        await().atMost(BACKGROUND).until(() -> accounts.stream()
                .anyMatch(a -> attempts(a).getList("error", String.class).stream()
                        .anyMatch(e -> e != null && e.contains("circuit breaker is open"))));
        // While it is open, attempts fail on it without calling: wait for four more such attempts (each account is
        // attempted again within 1 to 2 s). No lookup may reach management-service until the breaker's delay (5 s)
        // has passed since the last call before it opened (less 1 s, for a call already under way when it opened);
        // after that it lets one trial call through, by design.
        long lastCall = accounts.stream().flatMap(a -> HookPlatformResource.lookupTimes(a).stream())
                .mapToLong(Long::longValue).max().orElseThrow();
        long refused = accounts.stream().mapToLong(ManagementOutageTest::refusedByTheBreaker).sum();
        await().atMost(BACKGROUND).until(() -> accounts.stream()
                .mapToLong(ManagementOutageTest::refusedByTheBreaker).sum() >= refused + 4);
        List<Long> through = accounts.stream().flatMap(a -> HookPlatformResource.lookupTimes(a).stream())
                .filter(t -> t > lastCall).toList();
        assertTrue(through.stream().allMatch(t -> t - lastCall >= Duration.ofSeconds(4).toNanos()),
                "the open breaker let lookups through " + through.stream().map(t -> (t - lastCall) / 1_000_000)
                        .toList() + " ms after the last call before it opened");
        accounts.forEach(LOOKUP_SCRIPT::remove); // management-service is back
        for (String account : accounts) {
            awaitHooks(account, 1);
            await().atMost(BACKGROUND).until(() -> "DELIVERED".equals(delivery(account).get("status")));
            given().header("Authorization", OPERATOR).get("/admin/v1/accounts/" + account + "/endpoint").then()
                    .statusCode(200).body("consecutive_failures", equalTo(0));
        }
    }

    /**
     * A refusal (here 401: a wrong internal key) is not asked again at once and does not open the breaker; the
     * attempt's error names it, and the next attempt asks again.
     */
    @Test
    void aRefusedLookupIsNotRetriedAtOnce() {
        String refusals = "hook_account_lookups_refused_total{status=\"401\"}";
        double refusedBefore = metric(refusals);
        String account = account();
        lookupAnswers(account, new Answer(401, 0, null), new Answer(200, 0, null));
        intake(event(account, 1), 202);
        HookPlatformResource.Received hook = awaitHooks(account, 1).get(0);
        await().atMost(BACKGROUND).until(() -> "DELIVERED".equals(delivery(account).get("status")));
        JsonPath attempts = attempts(account);
        int delivered = attempts.getList("status_code").size();
        assertTrue(delivered >= 2, "the first attempt's lookup was refused: " + attempts.prettify());
        assertEquals(String.valueOf(delivered), hook.header("X-Hook-Attempt"), "only the delivered attempt sent");
        assertTrue(attempts.getString("[0].error").contains("refused the lookup with 401"), attempts.prettify());
        // the lookup after the refusal was the next attempt's, on the retry schedule (a lookup of that attempt that
        // outlasted its time-out on a loaded machine may have been retried at once: more lookups, not sooner)
        List<Long> at = lookupTimes(account);
        assertTrue(at.size() >= 2, "lookups: " + at.size());
        Duration gap = Duration.ofNanos(at.get(1) - at.get(0));
        assertTrue(gap.compareTo(NEXT_ATTEMPT) >= 0,
                "the refused lookup was asked again at once, after " + gap.toMillis() + " ms");
        // the breaker does not count it, so it is counted on its own, for the alert HookManagementLookupsRefused
        assertEquals(refusedBefore + 1, metric(refusals), refusals);
        // and said in the log, where the runbook looks (at most once a minute)
        assertTrue(log.messages().stream().anyMatch(w -> w.contains("Looking up account " + account
                + ": management-service refused the lookup with 401; check hook.management.internal-api-key")),
                log.messages().toString());
    }

    private LogCapture log;

    @Inject
    CircuitBreakerMaintenance breakers;

    @BeforeEach
    void closedBreakerAndListening() {
        breakers.resetAll(); // closed, with no calls counted: whatever the tests before left
        log = LogCapture.of(AccountDirectory.class.getName(), java.util.logging.Level.INFO);
    }

    @AfterEach
    void stopListening() {
        log.close();
    }
}
