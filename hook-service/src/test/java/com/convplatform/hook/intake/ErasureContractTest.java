package com.convplatform.hook.intake;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

import com.convplatform.api.Contracts;
import com.convplatform.hook.HookPlatformResource;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * hook-service's side of platform-api's recorded erasure call: the recorded request is taken, and the real answer has
 * the recorded answer's shape. upload-service's HookErasureContractTest sends the same request and reads that answer.
 */
@QuarkusTest
@QuarkusTestResource(HookPlatformResource.class)
class ErasureContractTest {
    @Test
    void theRecordedRequestIsTakenAndAnsweredInTheRecordedShape() {
        String answer = given().header("Authorization", "Bearer test-internal-key").contentType(ContentType.JSON)
                .body(Contracts.sample(Contracts.HOOK_ERASURE)).post("/internal/v1/erasures").then().statusCode(200)
                .extract().asString();
        assertEquals(List.of(), Contracts.shapeDifferences(Contracts.sample(Contracts.HOOK_ERASED), answer), answer);
    }
}
