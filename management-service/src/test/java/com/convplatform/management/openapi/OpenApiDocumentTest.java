package com.convplatform.management.openapi;

import static io.restassured.RestAssured.given;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import com.convplatform.testsupport.OpenApiDocument;

import io.quarkus.test.junit.QuarkusTest;

@QuarkusTest
class OpenApiDocumentTest {
    @Test
    void dump() throws Exception {
        String json = given().queryParam("format", "json").get("/q/openapi").then().statusCode(200).extract()
                .asString();
        Files.writeString(Path.of("target/openapi.json"), json);
        OpenApiDocument doc = OpenApiDocument.parse(json);
        System.out.println("EXAMPLES " + doc.checkErrorExamples());
    }
}
