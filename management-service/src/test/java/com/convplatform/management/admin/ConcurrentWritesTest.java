package com.convplatform.management.admin;

import static com.convplatform.management.Fixtures.OPERATOR;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
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
 * Two operators writing the same thing at the same moment: the write that loses the race on a unique key gets the
 * answer it would have got a moment later (409 with its code, or the block already made), not a 500. The race is
 * made certain by holding the first write's row uncommitted in a transaction of the test's own. Nothing is logged.
 */
@QuarkusTest
class ConcurrentWritesTest {
    @Inject
    DataSource dataSource;

    /** Every pooled session waits at most 30 s for a lock, and is ended after 60 s idle inside a transaction. */
    @Test
    void theDatabaseSessionsHaveTheirTimeLimits() throws Exception {
        com.convplatform.testsupport.PostgresTestResource.assertSessionLimits(dataSource);
    }

    /** The race is the unique key's to decide, not a failed insert's: Hibernate logs nothing for an operator to chase. */
    private static <T> T quietly(Callable<T> race) throws Exception {
        try (LogCapture hibernate = LogCapture.of("org.hibernate", Level.WARNING)) {
            T answer = race.call();
            assertEquals(List.of(), hibernate.summaries());
            return answer;
        }
    }

    @Test
    void anAccountCreatedTwiceAtOnceGetsFqdnTaken() throws Exception {
        String fqdn = AdminApiTest.uniqueFqdn();
        ExtractableResponse<Response> answer = quietly(() -> HeldRow.whileInserting(dataSource,
                "insert into account (id, name, fqdn, business_id, webhook_url, created_at,"
                        + " require_sha256) values (?, 'first', ?, ?, ?, ?, false)",
                new Object[]{UUID.randomUUID().toString(), fqdn, AdminApiTest.digits(), "https://" + fqdn + "/h",
                        Timestamp.from(Instant.now())},
                () -> AdminApiTest.post("/admin/v1/accounts", Map.of("name", "second", "fqdn", fqdn, "business_id",
                        AdminApiTest.digits(), "webhook_url", "https://" + fqdn + "/h")).extract(),
                ExtractableResponse::asString));
        assertEquals(409, answer.statusCode(), answer.asString());
        assertEquals("FQDN_TAKEN", answer.path("error_code"));
    }

    @Test
    void aBusinessClaimedTwiceAtOnceGetsBusinessTaken() throws Exception {
        String business = AdminApiTest.digits();
        String other = AdminApiTest.uniqueFqdn();
        String fqdn = AdminApiTest.uniqueFqdn();
        ExtractableResponse<Response> answer = quietly(() -> HeldRow.whileInserting(dataSource,
                "insert into account (id, name, fqdn, business_id, webhook_url, created_at,"
                        + " require_sha256) values (?, 'first', ?, ?, ?, ?, false)",
                new Object[]{UUID.randomUUID().toString(), other, business, "https://" + other + "/h",
                        Timestamp.from(Instant.now())},
                () -> AdminApiTest.post("/admin/v1/accounts", Map.of("name", "second", "fqdn", fqdn, "business_id",
                        business, "webhook_url", "https://" + fqdn + "/h")).extract(),
                ExtractableResponse::asString));
        assertEquals(409, answer.statusCode(), answer.asString());
        assertEquals("BUSINESS_TAKEN", answer.path("error_code"));
    }

    @Test
    void aCertificateBlockedTwiceAtOnceKeepsTheFirstReason() throws Exception {
        String fingerprint = UUID.randomUUID().toString().replace("-", "").repeat(2);
        ExtractableResponse<Response> answer = quietly(() -> HeldRow.whileInserting(dataSource,
                "insert into blocked_certificate (sha256_fingerprint, reason, blocked_at)"
                        + " values (?, 'first', ?)",
                new Object[]{fingerprint, Timestamp.from(Instant.now())},
                () -> given().header("Authorization", OPERATOR).contentType(ContentType.JSON)
                        .body(Map.of("reason", "second")).put("/admin/v1/certificate-blocks/" + fingerprint).then()
                        .extract(),
                ExtractableResponse::asString));
        assertEquals(200, answer.statusCode(), answer.asString());
        assertEquals("first", answer.path("reason"));
    }
}
