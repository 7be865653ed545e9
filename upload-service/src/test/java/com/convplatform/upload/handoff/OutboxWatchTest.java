package com.convplatform.upload.handoff;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.logging.Level;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.convplatform.testsupport.LogCapture;
import com.convplatform.testsupport.ManagementInterface;

import io.quarkus.test.junit.QuarkusTest;

/**
 * An outbox that does not move: an event whose message was logged ten minutes ago and that no sender may take (its
 * next attempt far ahead, as after many failures). {@code upload_outbox_oldest_age_seconds} shows its wait, and past
 * {@code upload.outbox.stuck-after} (5 min) one warning names the setting, the count, the last error and the causes;
 * once it moves again, one line says so, and the next stop is warned of at once.
 */
@QuarkusTest
class OutboxWatchTest {
    private LogCapture log;
    private String stuck;

    @Inject
    OutboxWatch watch;

    @BeforeEach
    void listen() {
        // Another test's stuck event (removed by now) may have made the watch warn moments ago; one check sees the
        // outbox move, so this test's event starts a stop of its own
        watch.check();
        log = LogCapture.of(OutboxWatch.class.getName(), Level.INFO);
    }

    @AfterEach
    void cleanUp() {
        log.close();
        if (stuck != null) {
            remove(stuck);
        }
    }

    @Test
    void anEventThatDoesNotMoveShowsInTheGaugeAndInOneWarning() {
        Instant logged = Instant.now().minus(Duration.ofMinutes(10));
        stuck = stuckEvent(logged);
        watch.check(); // the gauge shows the last check's sample, as the schedule takes it
        double age = oldestAge();
        assertTrue(age >= 600 && age < 660, "the oldest event's wait, in seconds: " + age);

        // checked every 0.5 s in the tests (upload.outbox.check-interval): one warning, at most one a minute
        await().atMost(Duration.ofSeconds(20)).until(() -> lines().stream().anyMatch(w -> w.startsWith("WARN")));
        for (int i = 0; i < 3; i++) {
            watch.check(); // more checks within the minute, as the schedule makes them: no second warning
        }
        assertEquals(1, lines().stream().filter(w -> w.startsWith("WARN")).count(), lines().toString());
        String warning = lines().stream().filter(w -> w.startsWith("WARN")).findFirst().orElseThrow();
        assertTrue(warning.contains("The outbox does not move:") && warning.contains("upload.outbox.stuck-after PT5M")
                && warning.contains("7 failed posts of it so far, last: 503 from hook-service")
                && warning.contains("upload.hook-service.url"), warning);

        // once the event has gone, the gauge drops (other tests' events, if any, are seconds old) and the watch says
        // the outbox moves again
        remove(stuck);
        stuck = null;
        watch.check();
        assertTrue(oldestAge() < 60, "no event waits for long now");
        await().atMost(Duration.ofSeconds(20))
                .until(() -> lines().stream().anyMatch(w -> w.contains("The outbox moves again")));

        // stopping again within the minute is a new stop: warned at once, not held back by the last warning
        stuck = stuckEvent(logged);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> lines().stream().filter(w -> w.startsWith("WARN")).count() == 2);
    }

    /** What the watch logged, each line as its level and message. */
    private List<String> lines() {
        return log.records().stream().map(r -> r.getLevel() + " " + LogCapture.message(r)).toList();
    }

    private static double oldestAge() {
        String metrics = given().get(ManagementInterface.url("/q/metrics")).then().statusCode(200).extract().asString();
        String line = metrics.lines().filter(l -> l.startsWith("upload_outbox_oldest_age_seconds")).findFirst()
                .orElseThrow(() -> new AssertionError("no upload_outbox_oldest_age_seconds in:\n" + metrics));
        return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
    }

    String stuckEvent(Instant logged) {
        return OutboxRows.stuckEvent("stuck outbox test", logged);
    }

    void remove(String id) {
        OutboxRows.remove(id);
    }
}
