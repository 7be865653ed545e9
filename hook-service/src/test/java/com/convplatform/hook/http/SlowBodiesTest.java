package com.convplatform.hook.http;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

import com.convplatform.hook.HookPlatformResource;
import com.convplatform.hook.delivery.HookDeliveryTest;
import com.convplatform.testsupport.LogCapture;
import com.convplatform.testsupport.ManagementInterface;
import com.convplatform.testsupport.StalledBodies;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * Issue 39: 300 intake bodies that declare 20 KB more than they send and stall, from ten addresses, with the internal
 * key (so their bodies are read): they hold no worker thread, a valid event meanwhile is taken in before any of them
 * reaches its deadline, the clients that give up cost no ERROR and no 500, and the others are answered 408 BODY_TIMEOUT
 * at the deadline.
 */
@QuarkusTest
@QuarkusTestResource(HookPlatformResource.class)
class SlowBodiesTest {
    @ConfigProperty(name = "quarkus.http.test-port")
    int port;

    @Test
    void threeHundredStalledBodiesLeaveIntakeAnsweringAndEndAtTheDeadline() throws Exception {
        String account = UUID.randomUUID().toString();
        intake(account, 1);
        // other tests of this application may have answered 5xx on purpose
        double serverErrorsBefore = ManagementInterface.serverErrors();
        try (LogCapture log = LogCapture.errors();
                StalledBodies stalled = StalledBodies.open(port, "/internal/v1/events",
                        Map.of("Content-Type", "application/json", "Authorization", HookDeliveryTest.INTERNAL), 300,
                        20_000, 30)) {
            for (int i = 0; i < 5; i++) {
                intake(account, 2 + i);
            }
            // Answered while every stalled body still waits for its deadline: none needed a worker or a slot that only
            // the deadline frees. An order of events, not a bound on time (a bound of one second failed on a machine
            // under a load of 10-19).
            assertEquals(0, stalled.answeredSoFar(StalledBodies.TIMED_OUT),
                    "a valid intake call waited for the stalled bodies' deadline");
            stalled.giveUp(150);
            List<String> answers = stalled.statusLines(15_000);
            assertEquals(150, answers.size());
            answers.forEach(line -> assertEquals(StalledBodies.TIMED_OUT, line));
            assertEquals(List.of(), log.summaries(), "clients that gave up or timed out are no error of the service");
        }
        assertEquals(serverErrorsBefore, ManagementInterface.serverErrors(), "no 5xx answered meanwhile");
    }

    private static void intake(String account, long messageId) {
        given().header("Authorization", HookDeliveryTest.INTERNAL).contentType(ContentType.JSON)
                .body(HookDeliveryTest.event(account, messageId)).post("/internal/v1/events").then().statusCode(202);
    }
}
