package com.convplatform.console;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

import com.convplatform.testsupport.LogCapture;
import com.convplatform.testsupport.StalledBodies;

import io.quarkus.test.junit.QuarkusTest;

/**
 * Issue 39: 300 sign-in bodies that declare 20 KB more than they send and stall, from ten addresses, against the one
 * form anyone may post: a valid sign-in meanwhile answers before any of them reaches its deadline, the clients that
 * give up cost no ERROR, and the others are answered 408 BODY_TIMEOUT at the deadline.
 */
@QuarkusTest
class SlowBodiesTest {
    @ConfigProperty(name = "quarkus.http.test-port")
    int port;

    /** A sign-in form of 20 KB: fields of 1 KB each (one field over 2 KiB is refused by the form reader at once). */
    private static byte[] form() {
        StringBuilder form = new StringBuilder("j_username=alice");
        for (int i = 0; form.length() < 20_000; i++) {
            form.append("&f").append(i).append('=').append("a".repeat(1000));
        }
        return form.substring(0, 20_000).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    @Test
    void threeHundredStalledSignInsLeaveTheConsoleAnsweringAndEndAtTheDeadline() throws Exception {
        ConsoleSecurityTest.signIn("alice");
        try (LogCapture log = LogCapture.errors();
                StalledBodies stalled = StalledBodies.open(port, "/j_security_check",
                        Map.of("Content-Type", "application/x-www-form-urlencoded"), form(), 300, 20_000, 30)) {
            // Each sign-in is answered (its PBKDF2 check takes what it takes on a loaded machine), and a page of a
            // signed-in operator, while every stalled body still waits for its deadline: none needed a worker or a
            // slot that only the deadline frees. An order of events, not a bound on time (a bound of one second
            // failed on a machine under a load of 10-19).
            for (int i = 0; i < 5; i++) {
                String session = ConsoleSecurityTest.signIn("alice");
                given().cookie("quarkus-credential", session).get("/accounts").then().statusCode(200);
            }
            assertEquals(0, stalled.answeredSoFar(StalledBodies.TIMED_OUT),
                    "a page waited for the stalled bodies' deadline");
            stalled.giveUp(150);
            List<String> answers = stalled.statusLines(15_000);
            assertEquals(150, answers.size());
            answers.forEach(line -> assertEquals(StalledBodies.TIMED_OUT, line));
            assertEquals(List.of(), log.summaries(), "clients that gave up or timed out are no error of the console");
        }
    }
}
