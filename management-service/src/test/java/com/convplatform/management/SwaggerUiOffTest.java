package com.convplatform.management;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.InputStream;
import java.util.Map;
import java.util.Properties;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * Swagger UI is built in but off unless configured: the setting every production replica starts with (the unprofiled
 * value of application.properties) serves no Swagger UI, while the OpenAPI document stays.
 */
@QuarkusTest
@QuarkusTestResource(ClientPkiResource.class)
@TestProfile(SwaggerUiOffTest.AsInProduction.class)
class SwaggerUiOffTest {
    public static class AsInProduction implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.swagger-ui.enabled", production());
        }
    }

    static String production() {
        try (InputStream in = SwaggerUiOffTest.class.getResourceAsStream("/application.properties")) {
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("quarkus.swagger-ui.enabled");
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void productionServesNoSwaggerUiButTheDocument() {
        assertEquals("false", production());
        given().get("/q/swagger-ui/").then().statusCode(404);
        given().get("/q/openapi").then().statusCode(200);
    }
}
