package com.convplatform.console;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.restassured.response.Response;

/**
 * Sign-in with OpenID Connect against a provider on loopback (Quarkus' WireMock OIDC server: discovery, JWKS, an
 * authorization endpoint with a login form, a token endpoint; user {@code alice} with the roles {@code admin} and
 * {@code user}), black-box over HTTP as a browser does it: {@code /sso} sends the browser to the provider, the provider
 * sends it back with a code, the console exchanges the code, checks the tokens and opens a session. The provider's
 * {@code admin} role is mapped to the console's {@code operator} role here ({@code quarkus.http.auth.roles-mapping},
 * the documented way for a provider whose role is named otherwise); {@link OidcWithoutTheRoleTest} shows that a signed-in
 * user without it is refused.
 */
@QuarkusTest
@TestProfile(OidcSignInTest.Oidc.class)
@QuarkusTestResource(value = OidcWiremockTestResource.class, restrictToAnnotatedClass = true)
class OidcSignInTest {
    public static class Oidc implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> config = new HashMap<>(OidcWithoutTheRoleTest.PROVIDER);
            config.put("quarkus.http.auth.roles-mapping.\"admin\"", "operator");
            return config;
        }
    }

    /** Walks the code flow from {@code /sso} to the console's first page; returns the cookies of the session. */
    static Map<String, String> signInAtTheProvider(String user) {
        Response start = given().redirects().follow(false).get("/sso");
        assertEquals(302, start.statusCode(), "/sso sends the browser to the provider");
        URI authorize = URI.create(start.header("Location"));
        Map<String, String> query = query(authorize);
        assertEquals("code", query.get("response_type"));
        assertEquals("quarkus-web-app", query.get("client_id"));
        assertTrue(query.get("redirect_uri").endsWith("/sso"), query.toString());
        assertNotNull(query.get("state"));
        Map<String, String> cookies = new HashMap<>(start.cookies());
        assertTrue(cookies.keySet().stream().anyMatch(c -> c.startsWith("q_auth")), "a state cookie: " + cookies);

        // The provider's sign-in page, then its form, as the browser would submit it.
        given().get(authorize).then().statusCode(200).body(containsString("name=\"password\""));
        Response back = given().redirects().follow(false).queryParam("username", user).queryParam("password", user)
                .queryParam("state", query.get("state")).queryParam("redirect_uri", query.get("redirect_uri"))
                .get(authorize.resolve("/login"));
        assertEquals(302, back.statusCode());
        URI callback = URI.create(back.header("Location"));
        assertTrue(query(callback).containsKey("code"), callback.toString());

        // Back at the console with the code: it is exchanged, and the session cookie is set.
        Response answer = given().redirects().follow(false).cookies(cookies).get(callback);
        for (int hops = 0; answer.statusCode() / 100 == 3 && hops < 5; hops++) {
            cookies.putAll(answer.cookies());
            String next = answer.header("Location");
            if (next.endsWith("/login")) {
                break;
            }
            answer = given().redirects().follow(false).cookies(cookies).get(callback.resolve(next));
        }
        cookies.putAll(answer.cookies());
        cookies.entrySet().removeIf(c -> c.getValue().isEmpty());
        assertTrue(cookies.keySet().stream().anyMatch(c -> c.startsWith("q_session")), "a session: " + cookies);
        return cookies;
    }

    static Map<String, String> query(URI uri) {
        Map<String, String> result = new HashMap<>();
        for (String pair : uri.getRawQuery().split("&")) {
            int eq = pair.indexOf('=');
            result.put(pair.substring(0, eq), URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return result;
    }

    @Test
    void anOperatorSignsInAtTheProviderAndTheConsoleNamesThem() {
        Map<String, String> session = signInAtTheProvider("alice");
        given().cookies(session).get("/").then().statusCode(200)
                .body(containsString("<span id=\"operator-name\">alice</span>"));
        given().cookies(session).get("/accounts").then().statusCode(200);
    }

    @Test
    void signingOutEndsTheProviderSessionHereToo() {
        Map<String, String> session = signInAtTheProvider("alice");
        Response page = given().cookies(session).get("/");
        String field = page.htmlPath().getString("**.find { it.@name == 'csrf-token' }.@value");
        Map<String, String> cookies = new HashMap<>(session);
        cookies.putAll(page.cookies());
        Response out = given().redirects().follow(false).cookies(cookies).formParam("csrf-token", field)
                .post("/logout");
        assertEquals(303, out.statusCode(), out.asString());
        cookies.putAll(out.cookies());
        cookies.entrySet().removeIf(c -> c.getValue().isEmpty());
        given().redirects().follow(false).cookies(cookies).get("/").then().statusCode(302)
                .header("Location", containsString("/auth/realms/quarkus?"));
    }

    @Test
    void aCodeThatDoesNotMatchTheBrowsersStateOpensNoSession() {
        Response start = given().redirects().follow(false).get("/sso");
        String state = query(URI.create(start.header("Location"))).get("state");
        Map<String, String> cookies = new HashMap<>(start.cookies());
        // A code with another state than the browser's cookie holds, and the right state without that cookie.
        for (Response answer : new Response[]{
                given().redirects().follow(false).cookies(cookies).queryParam("state", "not-the-state")
                        .queryParam("code", "58af24f2-9093-4674-a431-4a9d66be719c").get("/sso"),
                given().redirects().follow(false).queryParam("state", state)
                        .queryParam("code", "58af24f2-9093-4674-a431-4a9d66be719c").get("/sso")}) {
            assertTrue(answer.statusCode() == 401 || answer.statusCode() == 302, answer.statusLine());
            assertTrue(answer.cookies().keySet().stream().noneMatch(c -> c.startsWith("q_session")),
                    "no session: " + answer.headers());
            if (answer.statusCode() == 302) {
                assertTrue(answer.header("Location").contains("/auth/realms/quarkus?"), answer.header("Location"));
            }
            Map<String, String> after = new HashMap<>(cookies);
            after.putAll(answer.cookies());
            given().redirects().follow(false).cookies(after).get("/").then().statusCode(302)
                    .header("Location", containsString("/auth/realms/quarkus?"));
        }
    }

    @Test
    void withoutASessionEveryPageSendsTheBrowserToTheProvider() {
        // With OpenID Connect on, the provider is where operators sign in: a page without a session starts its flow.
        for (String page : new String[]{"/", "/accounts", "/deliveries?status=DEAD"}) {
            given().redirects().follow(false).get(page).then().statusCode(302)
                    .header("Location",
                            containsString("/auth/realms/quarkus?response_type=code&client_id=quarkus-web-app"));
        }
        // An action without a session changes nothing: it is sent to sign in before its form is read.
        given().redirects().follow(false).formParam("csrf-token", "x").post("/deliveries/d1/retry").then()
                .statusCode(302).header("Location", containsString("/auth/realms/quarkus?"));
        given().get("/login").then().statusCode(200).body(containsString("href=\"/sso\""));
    }
}
