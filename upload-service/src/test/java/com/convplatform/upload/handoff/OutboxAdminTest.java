package com.convplatform.upload.handoff;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;

/**
 * The operator API's outbox backlog ({@code GET /admin/v1/outbox}) over HTTP: an event whose message was logged ten
 * minutes ago and that no sender may take (as after many failed posts) shows as the oldest, past
 * {@code upload.outbox.stuck-after} (5 min); once it has gone, nothing waits for long. The figures are those of the gauge
 * {@code upload_outbox_oldest_age_seconds}.
 */
@QuarkusTest
class OutboxAdminTest {
    static final String OPERATOR = "Bearer test-operator-key";
    private String stuck;

    @AfterEach
    void cleanUp() {
        if (stuck != null) {
            remove(stuck);
        }
    }

    static ValidatableResponse backlog() {
        return given().header("Authorization", OPERATOR).get("/admin/v1/outbox").then().statusCode(200)
                .contentType(ContentType.JSON);
    }

    @Test
    void anEventThatDoesNotMoveIsTheOldestAndPastStuckAfter() {
        Instant logged = Instant.now().minus(Duration.ofMinutes(10));
        stuck = stuckEvent(logged);
        ValidatableResponse r = backlog().body("pending", greaterThanOrEqualTo(1))
                .body("oldest_age_seconds", greaterThanOrEqualTo(600)).body("oldest_age_seconds", lessThan(660))
                .body("stuck_after", equalTo("PT5M")).body("stuck_after_seconds", equalTo(300))
                .body("stuck", equalTo(true));
        assertEquals(logged.toEpochMilli(), Instant.parse(r.extract().path("oldest_since")).toEpochMilli());

        remove(stuck);
        stuck = null;
        // other tests' events, if any, are seconds old and on their way
        await().atMost(Duration.ofSeconds(20)).until(() -> !backlog().extract().<Boolean>path("stuck"));
        backlog().body("oldest_age_seconds", lessThan(60)).body("stuck_after", equalTo("PT5M"));
    }

    @Test
    void everyRefusalHasItsStatusAndCode() {
        given().get("/admin/v1/outbox").then().statusCode(401).body("error_code", equalTo("UNAUTHORIZED"));
        given().header("Authorization", "Bearer nope").get("/admin/v1/outbox").then().statusCode(401)
                .body("error_code", equalTo("UNAUTHORIZED"));
        given().header("Authorization", OPERATOR).get("/admin/v1/outbox?account_id=a").then().statusCode(400)
                .body("error_code", equalTo("UNKNOWN_PARAMETER")).body("error_message", not(nullValue()));
        given().get("/q/openapi?format=json").then().statusCode(200)
                .body("components.schemas.OutboxBacklog.properties.stuck_after.examples[0]", equalTo("PT5M"))
                .body("paths.'/admin/v1/outbox'.get.responses.'400'.description",
                        org.hamcrest.Matchers.containsString("UNKNOWN_PARAMETER"));
    }

    String stuckEvent(Instant logged) {
        return OutboxRows.stuckEvent("outbox backlog test", logged);
    }

    void remove(String id) {
        OutboxRows.remove(id);
    }
}
