package com.convplatform.management.health;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

import org.junit.jupiter.api.Test;

import com.convplatform.testsupport.ManagementInterface;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;

@QuarkusTest
class HealthTest {
    @Test
    void livenessReportsTheServiceUp() {
        given().when().get(ManagementInterface.url("/q/health/live")).then().statusCode(200)
                .body("status", equalTo("UP"))
                .body("checks.name", hasItem("management-service"));
    }

    /** Health and metrics on the management interface only; the OpenAPI document on the API's port (the IT too). */
    @Test
    void healthAndMetricsAnswerOnTheManagementInterfaceOnly() throws Exception {
        ManagementInterface.assertOnlyThere(RestAssured.port);
    }

    @Test
    void openApiDocumentIsServed() {
        given().when().get("/q/openapi?format=json").then().statusCode(200).body("info.title",
                equalTo("management-service"));
    }
}
