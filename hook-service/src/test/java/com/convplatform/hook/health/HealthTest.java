package com.convplatform.hook.health;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;

@QuarkusTest
class HealthTest {
    @Test
    void livenessReportsTheServiceUp() {
        given().when().get("/q/health/live").then().statusCode(200).body("status", equalTo("UP"))
                .body("checks.name", hasItem("hook-service"));
    }

    @Test
    void openApiDocumentIsServed() {
        given().when().get("/q/openapi?format=json").then().statusCode(200).body("info.title", equalTo("hook-service"));
    }
}
