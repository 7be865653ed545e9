package com.convplatform.console;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.convplatform.console.security.SecurityHeaders;
import com.convplatform.testsupport.LogCapture;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/**
 * Black-box over HTTP, with the three services unreachable: no page without a session, no sign-in with a wrong
 * password, no form post without its CSRF token, and the security headers on every answer.
 */
@QuarkusTest
class ConsoleSecurityTest {
    static final String PASSWORD = "test-console-password";

    @TestHTTPResource(value = "/health/live", management = true)
    URL live;

    /** Signs in as {@code name} with the form and returns the session cookie. */
    static String signIn(String name) {
        return given().redirects().follow(false).formParams(Map.of("j_username", name, "j_password", PASSWORD))
                .post("/j_security_check").then().statusCode(302).cookie("quarkus-credential").extract()
                .cookie("quarkus-credential");
    }

    static String setCookie(Response r, String name) {
        return r.headers().getValues("Set-Cookie").stream().filter(c -> c.startsWith(name + "=")).findFirst()
                .orElseThrow(() -> new AssertionError("no " + name + " cookie set: " + r.headers()));
    }

    @Test
    void everyPageWithoutASessionRedirectsToTheSignInPage() {
        for (String page : new String[]{"/", "/accounts", "/deliveries?status=DEAD", "/deliveries/d1",
                "/accounts/a1", "/accounts/a1/replay", "/no-such-page", "/q/health/live"}) {
            given().redirects().follow(false).get(page).then().statusCode(302)
                    .header("Location", endsWith("/login")).header("Content-Security-Policy", SecurityHeaders.CSP);
        }
    }

    @Test
    void anActionWithoutASessionIsRefusedBeforeItsFormIsRead() {
        given().redirects().follow(false).formParam("csrf-token", "x").post("/deliveries/d1/retry").then()
                .statusCode(302).header("Location", endsWith("/login"));
    }

    @Test
    void theSignInPageIsOpenAndCarriesTheHeaders() {
        given().get("/login").then().statusCode(200).contentType(containsString("text/html"))
                .header("Content-Security-Policy", SecurityHeaders.CSP).header("X-Frame-Options", "DENY")
                .header("X-Content-Type-Options", "nosniff").header("Cache-Control", "no-store")
                .body(containsString("action=\"/j_security_check\"")).body(not(containsString("<script")));
    }

    @Test
    void aWrongPasswordOrAnUnsafeNameGivesNoSession() {
        for (Map<String, String> form : new Map[]{Map.of("j_username", "alice", "j_password", "wrong-password"),
                Map.of("j_username", "alice", "j_password", ""),
                Map.of("j_username", "al ice<script>", "j_password", PASSWORD)}) {
            Response r = given().redirects().follow(false).formParams(form).post("/j_security_check");
            // Refused: back to the sign-in page saying so, or (no password at all) 401; never a session.
            if (r.statusCode() != 401) {
                r.then().statusCode(302).header("Location", endsWith("/login?failed=1"));
            }
            assertNull(r.getCookie("quarkus-credential"), "a session for " + form);
        }
    }

    @Test
    void aSignedInOperatorSeesTheOverviewWithTheirNameAndWhatCouldNotBeReached() {
        given().cookie("quarkus-credential", signIn("alice")).get("/").then().statusCode(200)
                .header("Content-Security-Policy", SecurityHeaders.CSP)
                .body(containsString("<span id=\"operator-name\">alice</span>"))
                .body(containsString("hook-service could not be reached"))
                .body(containsString("name=\"csrf-token\""));
    }

    /**
     * Each panel that needs a service it cannot reach says so, naming the service, and the rest of the page is shown:
     * the outbox and JWT key tiles of the overview, the server-side account search, an account's recent uploads.
     */
    @Test
    void thePanelsOfAServiceThatCannotBeReachedSaySoAndThePageIsShown() {
        String session = signIn("alice");
        Response overview = given().cookie("quarkus-credential", session).get("/");
        overview.then().statusCode(200);
        assertEquals("tile warn", overview.htmlPath().getString(byId("tile-outbox") + ".@class"));
        String outbox = overview.htmlPath().getString(byId("tile-outbox"));
        assertTrue(outbox.startsWith("upload outbox: unavailable. upload-service could not be reached"), outbox);
        assertEquals("tile warn", overview.htmlPath().getString(byId("tile-jwt-key") + ".@class"));
        String key = overview.htmlPath().getString(byId("tile-jwt-key"));
        assertTrue(key.startsWith("JWT signing key: unavailable. management-service could not be reached"), key);

        given().cookie("quarkus-credential", session).queryParam("q", "acme").get("/accounts").then().statusCode(200)
                .body(containsString("management-service could not be reached"))
                .body(not(containsString("No account matches"))).body(containsString("value=\"acme\""));

        Response account = given().cookie("quarkus-credential", session).get("/accounts/a1");
        account.then().statusCode(200).body(containsString("<h2>Recent uploads</h2>"));
        String uploads = account.htmlPath().getString(byId("uploads-unavailable"));
        assertTrue(uploads.startsWith("Recent uploads unavailable: upload-service could not be reached"), uploads);
        // Its upload users are looked up by its business id: with the account unread, they were not looked up at all.
        String users = account.htmlPath().getString(byId("users-unavailable"));
        assertTrue(users.startsWith("Not looked up"), users);
        assertNull(account.htmlPath().getString(byId("no-users")));
    }

    /** The HTML path of the element with this id. */
    private static String byId(String id) {
        return "**.find { it.@id == '" + id + "' }";
    }

    @Test
    void theSessionCookieIsHttpOnlyAndSameSiteStrict() {
        Response r = given().redirects().follow(false)
                .formParams(Map.of("j_username", "alice", "j_password", PASSWORD)).post("/j_security_check");
        r.then().statusCode(302);
        String session = setCookie(r, "quarkus-credential");
        assertTrue(session.contains("HTTPOnly"), session);
        assertTrue(session.contains("SameSite=Strict"), session);
        assertFalse(session.contains("Secure"), "console.secure-cookies=false in the tests: " + session);
    }

    @Test
    void aFormPostWithoutItsCsrfTokenIsRefusedWith403AndChangesNothing() {
        String session = signIn("carol");
        // no token at all
        given().cookie("quarkus-credential", session).redirects().follow(false).formParam("reason", "x")
                .post("/accounts/a1/endpoint/disable").then().statusCode(403)
                .body(containsString("id=\"csrf-refused\""));
        // a token, but not this session's (a CSRF cookie, as the console once used, counts for nothing)
        given().cookie("quarkus-credential", session).cookie("csrf-token", "aaaaaaaaaaaaaaaaaaaaaa")
                .redirects().follow(false).formParam("csrf-token", "bbbbbbbbbbbbbbbbbbbbbb")
                .post("/deliveries/d1/retry").then().statusCode(403);
        // a body that is not a form
        given().cookie("quarkus-credential", session).redirects().follow(false).contentType("application/json")
                .body("{}").post("/deliveries/d1/retry").then().statusCode(403);
    }

    @Test
    void aFormPostWithItsCsrfTokenReachesTheServiceAndNamesItsFailure() {
        String session = signIn("alice");
        Response page = given().cookie("quarkus-credential", session).get("/deliveries/d1");
        // The delivery page names the service it could not reach, with no inline script or style (the CSP allows none).
        page.then().statusCode(200).header("Content-Security-Policy", SecurityHeaders.CSP)
                .body(containsString("hook-service could not be reached")).body(not(containsString("<script")))
                .body(not(containsString(" style=")));
        String field = page.htmlPath().getString("**.find { it.@name == 'csrf-token' }.@value");
        given().cookie("quarkus-credential", session).redirects().follow(false)
                .formParam("csrf-token", field).post("/deliveries/d1/retry").then().statusCode(502)
                .body(containsString("hook-service could not be reached"));
    }

    /** The last of a name's Set-Cookie headers: the one the browser keeps. */
    static String lastSetCookie(Response r, String name) {
        List<String> set = r.headers().getValues("Set-Cookie").stream().filter(c -> c.startsWith(name + "="))
                .toList();
        assertFalse(set.isEmpty(), "no " + name + " cookie set: " + r.headers());
        return set.get(set.size() - 1);
    }

    /** Sign-out ends the session on the server: the cookie the browser held, or any copy of it, opens nothing after. */
    @Test
    void signingOutEndsTheSession() {
        String session = signIn("alice");
        Response page = given().cookie("quarkus-credential", session).get("/");
        String field = page.htmlPath().getString("**.find { it.@name == 'csrf-token' }.@value");
        Response out = given().cookie("quarkus-credential", session).redirects()
                .follow(false).formParam("csrf-token", field).post("/logout");
        out.then().statusCode(303).header("Location", endsWith("/login?out=1"));
        String kept = lastSetCookie(out, "quarkus-credential");
        // What the browser holds now: the last header's value, unless that header expired the cookie.
        String held = kept.contains("Max-Age=0") ? "" : kept.substring(kept.indexOf('=') + 1, kept.indexOf(';'));
        given().redirects().follow(false).cookie("quarkus-credential", session).get("/").then().statusCode(302)
                .header("Location", endsWith("/login"));
        var next = given().redirects().follow(false);
        if (!held.isEmpty()) {
            next = next.cookie("quarkus-credential", held);
        }
        next.get("/").then().statusCode(302).header("Location", endsWith("/login"));
        assertTrue(kept.startsWith("quarkus-credential=;") && kept.contains("Max-Age=0"), kept);
    }

    @Test
    void anIdWithAnEncodedSeparatorCannotRetargetAnAction() {
        String session = signIn("alice");
        for (String path : new String[]{"/accounts/A%2Fendpoint%2Fdisable%3F/replay",
                "/accounts/a1/certificates/x%2F..%2F..%2Freplay%3F/revoke", "/deliveries/d1%2Fretry"}) {
            given().urlEncodingEnabled(false).cookie("quarkus-credential", session).get(path).then().statusCode(404)
                    .body(containsString("Nothing here")).body(not(containsString("endpoint/disable")));
        }
    }

    /** POSTs {@code path} as the signed-in {@code session}, with the CSRF token of a page, and the form given. */
    static Response act(String session, String path, Map<String, String> form) {
        Response page = given().cookie("quarkus-credential", session).get("/");
        String field = page.htmlPath().getString("**.find { it.@name == 'csrf-token' }.@value");
        return given().urlEncodingEnabled(false).cookie("quarkus-credential", session).redirects().follow(false)
                .formParam("csrf-token", field).formParams(form).post(path);
    }

    @Test
    void aMessageNotFoundIsNotClaimedWhenHookServiceWasNotAsked() {
        given().cookie("quarkus-credential", signIn("alice")).queryParam("account", "acme.example")
                .queryParam("message_id", "4711").get("/deliveries").then().statusCode(200)
                .body(containsString("could not be looked up")).body(not(containsString("never received")));
    }

    @Test
    void disablingAnEndpointNeedsAReason() {
        act(signIn("alice"), "/accounts/a1/endpoint/disable", Map.of("reason", "%20%20")).then().statusCode(400)
                .body(containsString("A reason is required"));
    }

    /** The lines logged on {@code console.audit} while {@code action} runs, each formatted as the log writes it. */
    static List<String> audited(Runnable action) {
        try (LogCapture log = LogCapture.of("console.audit", java.util.logging.Level.INFO)) {
            action.run();
            return log.messages();
        }
    }

    @Test
    void anAuditLineCannotBeSplitByWhatTheOperatorTyped() {
        String session = signIn("alice");
        List<String> lines = audited(() -> act(session,
                "/accounts/a1%0Aoperator=mallory%20action=revoke-certificate/endpoint/enable", Map.of()));
        List<String> enabling = lines.stream().filter(l -> l.contains("action=enable-endpoint")).toList();
        assertEquals(1, enabling.size(), lines.toString());
        assertFalse(enabling.get(0).contains("\n"), enabling.get(0));
        assertTrue(enabling.get(0).contains("target=a1\\u000aoperator=mallory"), enabling.get(0));
    }

    /** A refused CSRF post is audited with its (decoded) path: a newline encoded in it stays on the one line. */
    @Test
    void theAuditLineOfARefusedPostCannotBeSplitByItsPath() {
        String session = signIn("alice");
        List<String> lines = audited(() -> given().urlEncodingEnabled(false).cookie("quarkus-credential", session)
                .redirects().follow(false).formParam("reason", "x")
                .post("/accounts/a1%0Aoperator=mallory%20action=revoke-certificate/endpoint/disable").then()
                .statusCode(403).body(containsString("id=\"csrf-refused\"")));
        List<String> refused = lines.stream().filter(l -> l.contains("no valid CSRF token")).toList();
        assertEquals(1, refused.size(), lines.toString());
        assertFalse(refused.get(0).contains("\n"), refused.get(0));
        assertTrue(refused.get(0).startsWith("operator=alice action=POST /accounts/a1\\u000aoperator=mallory"),
                refused.get(0));
    }

    @Test
    void anUnknownPageIsAPageNotJson() {
        given().cookie("quarkus-credential", signIn("alice")).get("/no-such-page").then().statusCode(404)
                .contentType(containsString("text/html")).body(containsString("Nothing here"));
    }

    /**
     * Health is on the management interface, open there, and nothing else is (not the OpenAPI document of the pages);
     * the console's port has no health, even with a session.
     */
    @Test
    void healthAnswersOnTheManagementInterfaceOnly() {
        given().get(live).then().statusCode(200).body("status", equalTo("UP"));
        given().get(live.toString().replace("/q/health/live", "/q/openapi")).then().statusCode(404);
        String session = signIn("alice");
        for (String path : new String[]{"/q/health", "/q/health/live", "/q/health/ready", "/q/metrics"}) {
            given().cookie("quarkus-credential", session).get(path).then().statusCode(404)
                    .body(containsString("Nothing here"));
        }
    }
}
