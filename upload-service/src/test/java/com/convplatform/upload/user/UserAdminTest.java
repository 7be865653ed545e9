package com.convplatform.upload.user;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

import java.util.Map;

import org.junit.jupiter.api.Test;

import com.convplatform.upload.PlatformStubsResource;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

@QuarkusTest
@QuarkusTestResource(PlatformStubsResource.class)
class UserAdminTest {
    static final String OPERATOR = "Bearer test-operator-key";

    @Test
    void usersAreRegisteredListedAndDeletedWithTheOperatorKey() {
        given().contentType(ContentType.JSON).body(Map.of("auth_id", "a1", "business_id", "77")).post("/admin/v1/users")
                .then().statusCode(401).body("error_code", equalTo("UNAUTHORIZED"));
        given().header("Authorization", "Bearer nope").get("/admin/v1/users").then().statusCode(401);
        given().header("Authorization", OPERATOR).contentType(ContentType.JSON)
                .body(Map.of("auth_id", "a1", "business_id", "77")).post("/admin/v1/users").then().statusCode(201)
                .body("auth_id", equalTo("a1"));
        given().header("Authorization", OPERATOR).contentType(ContentType.JSON)
                .body(Map.of("auth_id", "a1", "business_id", "77")).post("/admin/v1/users").then().statusCode(409)
                .body("error_code", equalTo("USER_EXISTS"));
        given().header("Authorization", OPERATOR).contentType(ContentType.JSON)
                .body(Map.of("auth_id", "a-1", "business_id", "77")).post("/admin/v1/users").then().statusCode(400)
                .body("error_code", equalTo("INVALID_AUTH_ID"));
        given().header("Authorization", OPERATOR).contentType(ContentType.JSON)
                .body(Map.of("auth_id", "a2", "business_id", "x")).post("/admin/v1/users").then().statusCode(400)
                .body("error_code", equalTo("INVALID_BUSINESS_ID"));
        given().header("Authorization", OPERATOR).queryParam("business_id", "77").get("/admin/v1/users").then()
                .statusCode(200).body("auth_id", hasItem("a1"));
        given().header("Authorization", OPERATOR).delete("/admin/v1/users/77/a1").then().statusCode(204);
        given().header("Authorization", OPERATOR).delete("/admin/v1/users/77/a1").then().statusCode(404)
                .body("error_code", equalTo("USER_NOT_FOUND"));
    }
}
