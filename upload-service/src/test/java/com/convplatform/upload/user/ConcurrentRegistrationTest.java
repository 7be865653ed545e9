package com.convplatform.upload.user;

import static com.convplatform.upload.user.UserAdminTest.OPERATOR;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.logging.Level;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.convplatform.crypto.testing.HeldRow;
import com.convplatform.testsupport.LogCapture;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.ExtractableResponse;
import io.restassured.response.Response;

/**
 * A user registered twice at the same moment: the registration that loses the race gets 409, not a 500, and logs
 * nothing.
 */
@QuarkusTest
class ConcurrentRegistrationTest {
    @Inject
    DataSource dataSource;

    @Test
    void aUserRegisteredTwiceAtOnceGetsUserExists() throws Exception {
        String user = "u" + UUID.randomUUID().toString().substring(0, 8);
        ExtractableResponse<Response> answer;
        try (LogCapture hibernate = LogCapture.of("org.hibernate", Level.WARNING)) {
            answer = register(user);
            // the race is the unique key's to decide, not a failed insert's: nothing for an operator to chase
            assertEquals(List.of(), hibernate.summaries());
        }
        assertEquals(409, answer.statusCode(), answer.asString());
        assertEquals("USER_EXISTS", answer.path("error_code"));
    }

    private ExtractableResponse<Response> register(String user) throws Exception {
        return HeldRow.whileInserting(dataSource,
                "insert into app_user (id, auth_id, business_id, created_at) values (?, ?, '4242', ?)",
                new Object[]{UUID.randomUUID().toString(), user, Timestamp.from(Instant.now())},
                () -> given().header("Authorization", OPERATOR).contentType(ContentType.JSON)
                        .body(Map.of("auth_id", user, "business_id", "4242")).post("/admin/v1/users").then()
                        .extract(),
                ExtractableResponse::asString);
    }
}
