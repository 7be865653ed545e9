package com.convplatform.hook.retention;

import static com.convplatform.hook.delivery.HookDeliveryTest.OPERATOR;
import static com.convplatform.hook.delivery.HookDeliveryTest.account;
import static com.convplatform.hook.delivery.HookDeliveryTest.awaitDelivered;
import static com.convplatform.hook.delivery.HookDeliveryTest.event;
import static com.convplatform.hook.delivery.HookDeliveryTest.intake;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.convplatform.hook.HookPlatformResource;
import com.convplatform.hook.HookPlatformResource.Answer;
import com.convplatform.hook.QueueRows;
import com.convplatform.hook.delivery.HookDeliveryTest;
import com.convplatform.support.Retention;
import com.convplatform.support.TimeOrderedIds;
import com.convplatform.testsupport.ManagementInterface;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * Retention with the clock moved past the period: today's history and attempt log are dropped as whole partitions
 * (delivered and dead deliveries alike, the dead letter with them), while a delivery held for a disabled endpoint,
 * unfinished, stays in the queue and is delivered once the endpoint is enabled. A profile of its own: the run drops
 * today's partitions from under the application, so no other test class shares it.
 */
@QuarkusTest
@QuarkusTestResource(HookPlatformResource.class)
@TestProfile(RetentionTest.Own.class)
class RetentionTest {
    public static class Own implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("hook.retention.period", "P30D");
        }
    }

    @Inject
    HookRetention retention;

    @Test
    void aDayPastThePeriodIsDroppedWholeAndAnUnfinishedDeliveryIsKept() {
        String delivered = account();
        intake(event(delivered, 1), 202);
        intake(event(delivered, 2), 202);
        awaitDelivered(delivered, 2);
        String deliveredId = HookDeliveryTest.delivery(delivered).get("delivery_id").toString();

        String dead = account();
        HookPlatformResource.script(dead, new Answer(500, 0, null), new Answer(500, 0, null),
                new Answer(500, 0, null), new Answer(500, 0, null));
        intake(event(dead, 1), 202);
        await().atMost(Duration.ofSeconds(15))
                .until(() -> "DEAD".equals(HookDeliveryTest.delivery(dead).get("status")));
        String deadId = HookDeliveryTest.delivery(dead).get("delivery_id").toString();

        String held = account();
        given().header("Authorization", OPERATOR).post("/admin/v1/accounts/" + held + "/endpoint/disable").then()
                .statusCode(200);
        String heldEvent = intake(event(held, 1), 202);
        assertTrue(QueueRows.queuedOfEvent(heldEvent).held());

        Instant later = Instant.now().plus(Duration.ofDays(31).plusHours(1));
        Retention.Report report = retention.runAt(later);

        String day = LocalDate.now(ZoneOffset.UTC).toString().replace("-", "");
        assertTrue(report.dropped().containsAll(List.of("delivery_history_p" + day, "delivery_attempt_p" + day)),
                "today's history and attempt log are past the period: " + report);
        given().header("Authorization", OPERATOR).get("/admin/v1/deliveries/" + deliveredId).then().statusCode(404)
                .body("error_code", equalTo("DELIVERY_NOT_FOUND"));
        given().header("Authorization", OPERATOR).get("/admin/v1/deliveries/" + deadId).then().statusCode(404);
        assertEquals(0, QueueRows.count("select count(*) from dead_letter"), "the dead letter went with its history");
        assertEquals(0, QueueRows.count("select count(*) from delivery_stats where hour < ?",
                QueueRows.utc(later.minus(Duration.ofDays(30)))), "and the hourly counts of that time");
        given().header("Authorization", OPERATOR).get("/admin/v1/accounts/" + held + "/endpoint").then()
                .statusCode(200).body("held_deliveries", equalTo(1));

        String metrics = given().get(ManagementInterface.url("/q/metrics")).then().statusCode(200).extract().asString();
        double lastRun = metrics.lines().filter(l -> l.startsWith("retention_last_run_seconds "))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).findFirst().orElse(-1);
        assertEquals(later.getEpochSecond(), lastRun, 0.5, "retention_last_run_seconds is the run's time");
        assertTrue(metrics.lines()
                .anyMatch(l -> l.startsWith("retention_partitions_dropped_total{table=\"delivery_history\"}")
                        && !l.endsWith(" 0.0")),
                "the drop is counted");

        // Back to now: today's partitions are made again, and the held delivery goes out once its endpoint is enabled.
        retention.ensurePartitions();
        given().header("Authorization", OPERATOR).post("/admin/v1/accounts/" + held + "/endpoint/enable").then()
                .statusCode(200);
        awaitDelivered(held, 1);
    }

    /**
     * A dead letter left behind its dropped history (a run that dropped the partitions, then failed before removing the
     * dead letters) is not queued again, nor counted as queued: replay and retry say so, and the dead letter goes.
     */
    @Test
    void aDeadLetterWhoseHistoryIsGoneIsNotReplayed() {
        String account = account();
        String kept = TimeOrderedIds.next();
        String alone = TimeOrderedIds.next();
        for (String id : List.of(kept, alone)) {
            QueueRows.update("insert into dead_letter (delivery_id, account_id, finished_at) values (?, ?, ?)",
                    UUID.fromString(id), account, QueueRows.utc(Instant.now().minus(Duration.ofDays(31))));
        }
        given().header("Authorization", OPERATOR).post("/admin/v1/deliveries/" + alone + "/retry").then()
                .statusCode(404).body("error_code", equalTo("DELIVERY_NOT_FOUND"));
        given().header("Authorization", OPERATOR).post("/admin/v1/accounts/" + account + "/replay-dead-letters")
                .then().statusCode(200).body("requeued", equalTo(0));
        assertEquals(0, QueueRows.count("select count(*) from dead_letter where account_id = ?", account));
        assertEquals(0, QueueRows.ofAccount(account).size(), "nothing was queued");
    }
}
