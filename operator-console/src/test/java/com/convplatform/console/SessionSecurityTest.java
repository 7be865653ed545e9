package com.convplatform.console;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;

/**
 * Sessions held on the server, black-box over HTTP: sign-out ends a session for every copy of its cookie; a session
 * ends after 30 minutes idle and 8 hours after sign-in; sign-in is throttled per name and per address; a CSRF token
 * works only with the session it was made for. The console's clock ({@link TestClock}) is moved forward instead of
 * waiting. Its own console (profile), so that its locks and clock do not reach the other tests.
 */
@QuarkusTest
@TestProfile(SessionSecurityTest.Own.class)
class SessionSecurityTest {
    public static class Own implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("console.sign-in.max-failures", "5", "console.sign-in.max-failures-per-address", "20");
        }
    }

    static final String PASSWORD = ConsoleSecurityTest.PASSWORD;

    @Inject
    TestClock clock;

    /** The console's time moves only when a test moves it, however slow the machine. */
    @BeforeEach
    void stopTheClock() {
        clock.freeze();
    }

    /** Past every lock and every failure count (forgotten after an hour), and every session. */
    @AfterEach
    void afterEveryLock() {
        clock.advance(Duration.ofHours(9));
    }

    private static Response tryToSignIn(String name, String password) {
        return given().redirects().follow(false).formParams(Map.of("j_username", name, "j_password", password))
                .post("/j_security_check");
    }

    private static String session(Response signIn) {
        signIn.then().statusCode(302).header("Location", not(containsString("/login")));
        return signIn.getCookie("quarkus-credential");
    }

    private static int status(String session, String page) {
        return given().redirects().follow(false).cookie("quarkus-credential", session).get(page).statusCode();
    }

    private static String csrfField(Response page) {
        return page.htmlPath().getString("**.find { it.@name == 'csrf-token' }.@value");
    }

    @Test
    void signOutEndsTheSessionForACopiedCookie() {
        String session = session(tryToSignIn("bob", PASSWORD));
        String copy = session;
        Response page = given().cookie("quarkus-credential", session).get("/accounts");
        page.then().statusCode(200).body(containsString("<span id=\"operator-name\">bob</span>"));
        given().cookie("quarkus-credential", session).redirects().follow(false).formParam("csrf-token",
                csrfField(page)).post("/logout").then().statusCode(303).header("Location", endsWith("/login?out=1"));
        // The copy taken before sign-out: refused, sent to sign in, on every page and for every action.
        for (String p : new String[]{"/", "/accounts", "/deliveries", "/audit"}) {
            given().redirects().follow(false).cookie("quarkus-credential", copy).get(p).then().statusCode(302)
                    .header("Location", endsWith("/login"));
        }
        given().redirects().follow(false).cookie("quarkus-credential", copy).formParam("csrf-token", csrfField(page))
                .post("/deliveries/d1/retry").then().statusCode(302).header("Location", endsWith("/login"));
    }

    @Test
    void aSessionEndsAfterThirtyMinutesIdle() {
        String session = session(tryToSignIn("bob", PASSWORD));
        clock.advance(Duration.ofMinutes(29));
        assertEquals(200, status(session, "/accounts"));
        clock.advance(Duration.ofMinutes(29)); // 58 minutes after sign-in, 29 after the last request
        assertEquals(200, status(session, "/accounts"));
        clock.advance(Duration.ofMinutes(30).plusSeconds(1));
        assertEquals(302, status(session, "/accounts"));
        // and stays ended
        clock.advance(Duration.ofMinutes(-30));
        assertEquals(302, status(session, "/accounts"));
    }

    @Test
    void aSessionEndsEightHoursAfterSignInHoweverBusy() {
        String session = session(tryToSignIn("bob", PASSWORD));
        for (int i = 0; i < 31; i++) { // 7 h 45 min, a request every 15 minutes
            clock.advance(Duration.ofMinutes(15));
            assertEquals(200, status(session, "/accounts"), "after " + (i + 1) * 15 + " minutes");
        }
        clock.advance(Duration.ofMinutes(15));
        assertEquals(302, status(session, "/accounts"));
    }

    @Test
    void threeHundredWrongPasswordsDoNotGetThroughAndTheRightOneWaitsForTheLock() {
        int refusedAsWrong = 0;
        int refusedAsLocked = 0;
        for (int i = 0; i < 300; i++) {
            Response r = tryToSignIn("carol", "guess-" + i);
            r.then().statusCode(302);
            assertNull(r.getCookie("quarkus-credential"), "try " + i);
            String location = r.getHeader("Location");
            if (location.endsWith("/login?failed=1")) {
                refusedAsWrong++;
            } else {
                assertTrue(location.matches(".*/login\\?failed=locked&wait=[0-9]+"), location);
                refusedAsLocked++;
            }
        }
        // Four refused as wrong, the fifth locks the name; the rest refused without a look at the password.
        assertEquals(4, refusedAsWrong);
        assertEquals(296, refusedAsLocked);

        // The right password while locked: refused too, and the form says so (429), with how long to wait.
        Response right = tryToSignIn("carol", PASSWORD);
        assertNull(right.getCookie("quarkus-credential"));
        String location = right.getHeader("Location");
        assertTrue(location.endsWith("/login?failed=locked&wait=30"), location);
        Response form = given().get(location.substring(location.indexOf("/login")));
        form.then().statusCode(429).body(containsString("id=\"login-locked\""))
                .body(containsString("Try again in 30 s.")).body(containsString("action=\"/j_security_check\""));

        // Another name from the same address is not locked by carol's (20 failures lock an address).
        session(tryToSignIn("bob", PASSWORD));

        clock.advance(Duration.ofSeconds(29));
        assertTrue(tryToSignIn("carol", PASSWORD).getHeader("Location").contains("failed=locked"));
        clock.advance(Duration.ofSeconds(2));
        String session = session(tryToSignIn("carol", PASSWORD));
        assertEquals(200, status(session, "/accounts"));
    }

    @Test
    void eachFailureAfterTheLockDoublesIt() {
        for (int i = 0; i < 5; i++) {
            tryToSignIn("carol", "wrong");
        }
        clock.advance(Duration.ofSeconds(31));
        assertTrue(tryToSignIn("carol", "wrong").getHeader("Location").endsWith("failed=locked&wait=60"));
        clock.advance(Duration.ofSeconds(61));
        assertTrue(tryToSignIn("carol", "wrong").getHeader("Location").endsWith("failed=locked&wait=120"));
        clock.advance(Duration.ofSeconds(119));
        assertTrue(tryToSignIn("carol", PASSWORD).getHeader("Location").contains("failed=locked"));
        clock.advance(Duration.ofSeconds(2));
        session(tryToSignIn("carol", PASSWORD));
    }

    @Test
    void twentyFailuresFromOneAddressLockItForEveryName() {
        for (int i = 0; i < 20; i++) {
            assertTrue(tryToSignIn("nobody" + i, "wrong").getHeader("Location").contains("/login?failed="));
        }
        Response r = tryToSignIn("alice", PASSWORD);
        assertNull(r.getCookie("quarkus-credential"));
        assertTrue(r.getHeader("Location").contains("failed=locked"), r.getHeader("Location"));
        clock.advance(Duration.ofSeconds(31));
        session(tryToSignIn("alice", PASSWORD));
    }

    @Test
    void aWrongPasswordShowsTheFormAgainWithAMessage() {
        Response r = tryToSignIn("alice", "not-the-password");
        r.then().statusCode(302).header("Location", endsWith("/login?failed=1"));
        given().get("/login?failed=1").then().statusCode(200).contentType(containsString("text/html"))
                .body(containsString("id=\"login-failed\"")).body(containsString("action=\"/j_security_check\""))
                .body(not(containsString("error_code")));
        // A session cookie that is not one (forged, or of a console with another key): the form, never JSON.
        given().redirects().follow(false).cookie("quarkus-credential", "bm90LWEtc2Vzc2lvbg").get("/").then()
                .statusCode(302).header("Location", endsWith("/login"));
    }

    @Test
    void aCsrfTokenOfAnotherSessionIsRefused() {
        String first = session(tryToSignIn("alice", PASSWORD));
        String second = session(tryToSignIn("alice", PASSWORD));
        String firstToken = csrfField(given().cookie("quarkus-credential", first).get("/accounts"));
        String secondToken = csrfField(given().cookie("quarkus-credential", second).get("/accounts"));
        assertTrue(firstToken.length() >= 40 && !firstToken.equals(secondToken), firstToken + " " + secondToken);
        // The other session's token, the same name signed in: refused, nothing reaches the service.
        given().cookie("quarkus-credential", first).redirects().follow(false).formParam("csrf-token", secondToken)
                .post("/deliveries/d1/retry").then().statusCode(403).body(containsString("id=\"csrf-refused\""));
        // Its own: the action is tried (the service is unreachable here: 502, named).
        given().cookie("quarkus-credential", first).redirects().follow(false).formParam("csrf-token", firstToken)
                .post("/deliveries/d1/retry").then().statusCode(502)
                .body(containsString("hook-service could not be reached"));
        // A new sign-in is a new token: the one of before sign-out is refused with the new session.
        given().cookie("quarkus-credential", first).redirects().follow(false).formParam("csrf-token", firstToken)
                .post("/logout").then().statusCode(303);
        String third = session(tryToSignIn("alice", PASSWORD));
        given().cookie("quarkus-credential", third).redirects().follow(false).formParam("csrf-token", firstToken)
                .post("/deliveries/d1/retry").then().statusCode(403);
    }
}
