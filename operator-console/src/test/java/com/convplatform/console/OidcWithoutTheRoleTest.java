package com.convplatform.console;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.Map;
import java.util.logging.Level;

import org.junit.jupiter.api.Test;

import com.convplatform.testsupport.LogCapture;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.restassured.http.ContentType;
import io.restassured.response.Response;

/**
 * The provider and user of {@link OidcSignInTest}, without the role mapping: signed in there, but not an operator. Every
 * page and post is refused 403 with a page that names the user and the missing role (audited), and its sign-out
 * button ends the session.
 */
@QuarkusTest
@TestProfile(OidcWithoutTheRoleTest.Profile.class)
@QuarkusTestResource(value = OidcWiremockTestResource.class, restrictToAnnotatedClass = true)
class OidcWithoutTheRoleTest {
    static final Map<String, String> PROVIDER = Map.of("quarkus.oidc.tenant-enabled", "true",
            "quarkus.oidc.auth-server-url", "${keycloak.url}/realms/quarkus/", "quarkus.oidc.client-id",
            "quarkus-web-app", "quarkus.oidc.credentials.secret", "secret");

    public static class Profile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return PROVIDER;
        }
    }

    @Test
    void aUserWithoutTheOperatorRoleIsToldWhyAndMaySignOut() {
        Map<String, String> session = OidcSignInTest.signInAtTheProvider("alice");
        try (LogCapture audit = LogCapture.of("console.audit", Level.INFO)) {
            for (String path : new String[]{"/", "/accounts"}) {
                given().redirects().follow(false).cookies(session).get(path).then().statusCode(403)
                        .contentType(ContentType.HTML).header("Content-Security-Policy", containsString("default-src"))
                        .body(containsString("You are signed in as <strong id=\"signed-in-as\">alice</strong>"))
                        .body(containsString("does not carry the role <code>operator</code>"))
                        .body(containsString("Nothing was shown or changed"));
            }
            // a post is refused the same way, before its CSRF check: nothing changes
            given().redirects().follow(false).cookies(session).formParam("csrf-token", "x")
                    .post("/deliveries/d1/retry").then().statusCode(403)
                    .body(containsString("Not an operator"));
            assertTrue(audit.messages().contains("operator=alice action=GET /accounts target=console"
                    + " outcome=refused: signed in without the role operator"), audit.messages().toString());
        }

        // the page's own sign-out button works without the role
        Response page = given().cookies(session).get("/");
        String field = page.htmlPath().getString("**.find { it.@name == 'csrf-token' }.@value");
        assertFalse(field.isEmpty(), "the page carries the session's CSRF token");
        Response out = given().redirects().follow(false).cookies(session).formParam("csrf-token", field)
                .post("/logout");
        assertEquals(303, out.statusCode(), out.asString());
        assertEquals("/login?out=1", URI.create(out.header("Location")).getPath() + "?"
                + URI.create(out.header("Location")).getQuery());
        // without its token, the sign-out is refused like any other post
        given().redirects().follow(false).cookies(session).formParam("csrf-token", "x").post("/logout").then()
                .statusCode(403);
    }
}
