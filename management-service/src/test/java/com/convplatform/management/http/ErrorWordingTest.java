package com.convplatform.management.http;

import static com.convplatform.management.Fixtures.OPERATOR;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * The refusals that say what is wrong (issue 40): a wrong operator key is told apart from a missing or malformed
 * Authorization header and says where a local run keeps the key; a request meant for another service says which.
 */
@QuarkusTest
class ErrorWordingTest {
    @Test
    void aWrongKeyIsToldApartFromAMalformedHeaderAndChangesNothing() {
        String fqdn = "wording-" + System.nanoTime() + ".example.com";
        Map<String, String> account = Map.of("name", "W", "fqdn", fqdn, "business_id", "31", "webhook_url",
                "https://" + fqdn + "/h");
        String wrong = given().header("Authorization", "Bearer not-the-key").contentType(ContentType.JSON)
                .body(account).post("/admin/v1/accounts").then().statusCode(401).contentType(ContentType.JSON)
                .body("error_code", equalTo("UNAUTHORIZED"))
                .body("error_message", allOf(
                        containsString("The key given is not the operator key configured on this service"),
                        containsString("management.admin.api-key"), containsString("./run-local.sh"),
                        containsString("data/local/keys.env"), containsString("OPERATOR_KEY")))
                .extract().path("error_message");
        String malformed = given().header("Authorization", "Basic b3BlcmF0b3I6a2V5").contentType(ContentType.JSON)
                .body(account).post("/admin/v1/accounts").then().statusCode(401)
                .body("error_code", equalTo("UNAUTHORIZED"))
                .body("error_message", allOf(containsString("not of the form 'Bearer <key>'"),
                        not(containsString("not the operator key configured"))))
                .extract().path("error_message");
        given().header("Authorization", "Bearer ").get("/admin/v1/accounts").then().statusCode(401)
                .body("error_message", equalTo(malformed));
        given().contentType(ContentType.JSON).body(account).post("/admin/v1/accounts").then().statusCode(401)
                .body("error_code", equalTo("UNAUTHORIZED"))
                .body("error_message", containsString("No Authorization header"));
        assertNotEquals(wrong, malformed);
        given().header("Authorization", OPERATOR).queryParam("q", fqdn).get("/admin/v1/accounts").then()
                .statusCode(200).body("fqdn", not(hasItem(fqdn)));
    }

    @Test
    void anUploadSentHereNamesUploadService() {
        given().multiPart("auth_id", "demo").post("/v1.0/log_file_from_user/").then().statusCode(404)
                .contentType(ContentType.JSON).body("error_code", equalTo("WRONG_SERVICE"))
                .body("error_message", allOf(containsString("This is management-service"),
                        containsString("send it to upload-service"), containsString("8083")));
        // a path that is nobody's stays a plain 404
        given().get("/no/such/path").then().statusCode(404).body("error_code", equalTo("NOT_FOUND"));
    }
}
