package com.convplatform.management.admin;

import static com.convplatform.management.Fixtures.OPERATOR;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

import com.convplatform.api.Contracts;
import com.convplatform.management.Fixtures;

import io.quarkus.test.junit.QuarkusTest;

/**
 * management-service's side of platform-api's recorded internal API: what it really answers over HTTP has the
 * recorded samples' field names and types. hook-service's and upload-service's contract tests read the same samples.
 */
@QuarkusTest
class InternalContractTest {
    static final String INTERNAL = "Bearer test-internal-key";

    @Test
    void theAccountLookupAnswersTheRecordedShape() {
        String accountId = Fixtures.account("contract-" + System.nanoTime() + ".example.com");
        String answer = given().header("Authorization", INTERNAL).get("/internal/v1/accounts/" + accountId).then()
                .statusCode(200).extract().asString();
        assertEquals(List.of(), Contracts.shapeDifferences(Contracts.sample(Contracts.MANAGEMENT_ACCOUNT), answer));
    }

    @Test
    void theRevocationListAnswersTheRecordedShape() {
        String accountId = Fixtures.account("contract-" + System.nanoTime() + ".example.com");
        given().header("Authorization", OPERATOR).post("/admin/v1/accounts/" + accountId + "/disable").then()
                .statusCode(200);
        String answer = given().header("Authorization", INTERNAL).get("/internal/v1/revocations").then()
                .statusCode(200).extract().asString();
        assertEquals(List.of(),
                Contracts.shapeDifferences(Contracts.sample(Contracts.MANAGEMENT_REVOCATIONS), answer));
    }
}
