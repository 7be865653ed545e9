package com.convplatform.management.admin;

import static com.convplatform.management.Fixtures.OPERATOR;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.notNullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.logging.Level;

import org.jboss.logmanager.ExtLogRecord;
import org.junit.jupiter.api.Test;

import com.convplatform.crypto.pki.CertificateBuilder;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.management.ClientPkiResource;
import com.convplatform.management.Fixtures;
import com.convplatform.testsupport.LogCapture;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * management-service's operator actions on the audit trail: what a POST created is named by the id in its answer,
 * what a DELETE removed by its path, and who by the key and the operator the console names.
 */
@QuarkusTest
@QuarkusTestResource(ClientPkiResource.class)
class OperatorAuditTest {

    static Map<String, Object> newest() {
        return given().header("Authorization", OPERATOR).get("/admin/v1/audit?limit=1").then().statusCode(200)
                .extract().jsonPath().getMap("[0]");
    }

    @Test
    void creatingAnAccountIsRecordedWithTheIdItWasGiven() {
        String fqdn = "c" + UUID.randomUUID().toString().substring(0, 8) + ".example.org";
        String id = given().header("Authorization", OPERATOR).header("X-Operator", "alice")
                .contentType(ContentType.JSON).body(Map.of("name", "Shop", "fqdn", fqdn, "business_id", "77"
                        + Math.abs(UUID.randomUUID().getLeastSignificantBits() % 1_000_000_000L),
                        "webhook_url", "https://" + fqdn + "/hooks"))
                .post("/admin/v1/accounts").then().statusCode(201).extract().path("account_id");
        Map<String, Object> a = newest();
        assertEquals("alice", a.get("operator"));
        assertEquals("POST /admin/v1/accounts", a.get("action"));
        assertEquals("account_id=" + id, a.get("target"));
        assertEquals(201, a.get("status"));
        assertEquals("ok", a.get("outcome"));
    }

    /** The action's log line carries the request id its answer gave, as every other line of the request does. */
    @Test
    void theActionsLogLineCarriesTheRequestIdOfItsAnswer() {
        try (LogCapture log = LogCapture.of("com.convplatform.audit", Level.INFO)) {
            String requestId = given().header("Authorization", OPERATOR).contentType(ContentType.JSON)
                    .body(Map.of("name", "Logged shop")).post("/admin/v1/accounts/no-such-account/clients").then()
                    .statusCode(404).extract().header("X-Request-Id");
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> log.messages().stream().anyMatch(l -> l.contains("outcome=")));
            List<String> lines = log.records().stream()
                    .map(r -> ((ExtLogRecord) r).getMdc("request_id") + " " + LogCapture.message(r)).toList();
            assertEquals(List.of(requestId), lines.stream().filter(l -> l.contains("outcome=ACCOUNT_NOT_FOUND"))
                    .map(l -> l.substring(0, l.indexOf(' '))).toList(), "the action's lines: " + lines);
        }
    }

    @Test
    void revokingACertificateAndRotatingTheSigningKeyAreRecorded() throws Exception {
        String fqdn = "audit-" + UUID.randomUUID().toString().substring(0, 6) + ".example.org";
        String account = Fixtures.account(fqdn);
        KeyPair key = KeyPairs.rsa(2048);
        X509Certificate cert = CertificateBuilder.selfSigned(key, fqdn, Instant.now().plus(Duration.ofDays(30)), fqdn);
        String uuid = Fixtures.certificate(account, cert);

        given().header("Authorization", OPERATOR).header("X-Operator", "bob")
                .delete("/admin/v1/accounts/" + account + "/certificates/" + uuid).then().statusCode(204);
        Map<String, Object> revoked = newest();
        assertEquals("DELETE /admin/v1/accounts/{accountId}/certificates/{certificateUuid}", revoked.get("action"));
        assertEquals("accountId=" + account + ", certificateUuid=" + uuid, revoked.get("target"));
        assertEquals(204, revoked.get("status"));

        String kid = given().header("Authorization", OPERATOR).contentType(ContentType.JSON).body("{}")
                .post("/admin/v1/jwt/rotate").then().statusCode(200).extract().path("kid");
        Map<String, Object> rotated = newest();
        assertEquals("POST /admin/v1/jwt/rotate", rotated.get("action"));
        assertEquals("operator-key", rotated.get("credential"));
        assertNull(rotated.get("operator"));
        assertEquals("kid=" + kid, rotated.get("target"), "the new key");
        assertEquals("ok", rotated.get("outcome"));

        // what an action made is named after the path's parameters; a purge names whose chains it dropped
        String client = given().header("Authorization", OPERATOR).contentType(ContentType.JSON)
                .body("{\"name\": \"audited shop\"}").post("/admin/v1/accounts/" + account + "/clients").then()
                .statusCode(201).extract().path("client_id");
        assertEquals("accountId=" + account + ", client_id=" + client, newest().get("target"));
        given().header("Authorization", OPERATOR).post("/admin/v1/chain-cache/purge?fqdn=" + fqdn).then()
                .statusCode(202);
        assertEquals("fqdn=" + fqdn, newest().get("target"));
        given().header("Authorization", OPERATOR).post("/admin/v1/chain-cache/purge").then().statusCode(202);
        assertEquals("fqdn=*", newest().get("target"), "every account's");
    }

    /**
     * Only the operator's key (or the internal key naming an operator) is recorded: a state-changing call without a
     * credential, with a wrong one, or to the signed API leaves nothing on the trail.
     */
    @Test
    void callsWithoutTheOperatorsKeyAreNotRecorded() {
        given().header("Authorization", OPERATOR).header("X-Operator", "dave").contentType(ContentType.JSON)
                .body("{}").put("/admin/v1/certificate-blocks/" + "cd".repeat(32)).then().statusCode(400);
        Object before = newest().get("id");
        given().contentType(ContentType.JSON).body(Map.of("name", "Shop")).post("/admin/v1/accounts").then()
                .statusCode(401).body("error_code", notNullValue());
        given().header("Authorization", "Bearer not-the-key").contentType(ContentType.JSON)
                .body(Map.of("name", "Shop")).post("/admin/v1/accounts").then().statusCode(401);
        given().contentType(ContentType.JSON).body("{\"fqdn\":\"shop.example.org\"}")
                .post("/platform/management/clients/").then().statusCode(400);
        assertEquals(before, newest().get("id"));
    }

    @Test
    void aRefusedBlockIsRecordedWithItsCode() {
        given().header("Authorization", OPERATOR).header("X-Operator", "carol").contentType(ContentType.JSON)
                .body("{}").put("/admin/v1/certificate-blocks/" + "ab".repeat(32)).then().statusCode(400);
        Map<String, Object> a = newest();
        assertEquals("carol", a.get("operator"));
        assertEquals("PUT /admin/v1/certificate-blocks/{sha256}", a.get("action"));
        assertEquals(400, a.get("status"));
        assertEquals(given().header("Authorization", OPERATOR).contentType(ContentType.JSON).body("{}")
                .put("/admin/v1/certificate-blocks/" + "ab".repeat(32)).then().extract().path("error_code"),
                a.get("outcome"));
    }
}
