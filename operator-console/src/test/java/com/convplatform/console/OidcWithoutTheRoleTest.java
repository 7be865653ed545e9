package com.convplatform.console;

import static io.restassured.RestAssured.given;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;

/** The provider and user of {@link OidcSignInTest}, without the role mapping: signed in there, but not an operator. */
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
    void aUserWithoutTheOperatorRoleIsRefused() {
        Map<String, String> session = OidcSignInTest.signInAtTheProvider("alice");
        given().redirects().follow(false).cookies(session).get("/").then().statusCode(403);
        given().redirects().follow(false).cookies(session).get("/accounts").then().statusCode(403);
    }
}
