package com.convplatform.management.revocation;

import static com.convplatform.management.ClientPkiResource.FQDN;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.convplatform.crypto.Fingerprints;
import com.convplatform.crypto.management.ManagementRequestSigner;
import com.convplatform.crypto.pki.CertificateBuilder;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.crypto.time.TimestampWindow;
import com.convplatform.management.ClientPkiResource;
import com.convplatform.management.Fixtures;
import com.convplatform.management.account.AccountService;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;

/**
 * Issue 39: accounts and clients disabled and enabled through the operator API (audited), no token for them while
 * disabled, tokens carrying cert_sha256, and the revocation list that the services holding tokens poll.
 */
@QuarkusTest
@QuarkusTestResource(ClientPkiResource.class)
class DisableAndRevocationTest {
    static final String INTERNAL = "Bearer test-internal-key";
    static final String TOKEN = "/platform/management/token/issue/";
    static final String CLIENTS = "/platform/management/clients/";
    static final ObjectMapper JSON = new ObjectMapper();

    record Tenant(String fqdn, String accountId, KeyPair key, String certUuid, String fingerprint) {
    }

    /** A fresh account with a registered self-signed certificate: each test has its own. */
    static Tenant tenant(String fqdn) {
        String accountId = Fixtures.account(fqdn);
        KeyPair key = KeyPairs.ecP256();
        var cert = CertificateBuilder.selfSigned(key, fqdn, Instant.now().plusSeconds(86400), fqdn);
        var registered = given().header("Authorization", Fixtures.OPERATOR).contentType(ContentType.JSON)
                .body(Map.of("certificate", com.convplatform.crypto.pem.Pem.toPem(cert)))
                .post("/admin/v1/accounts/" + accountId + "/certificates").then().statusCode(201).extract();
        String fingerprint = registered.path("sha256_fingerprint");
        assertEquals(Fingerprints.sha256(cert), fingerprint);
        return new Tenant(fqdn, accountId, key, registered.path("certificate_uuid"), fingerprint);
    }

    static ValidatableResponse signed(String path, String body, PrivateKey key, String certUuid) {
        return given().contentType(ContentType.JSON).body(body.getBytes(StandardCharsets.UTF_8))
                .header("Signature", new ManagementRequestSigner(key).sign(body)).header("SignatureCertUUID", certUuid)
                .post(path).then();
    }

    static ValidatableResponse token(Tenant t, String clientId) {
        return signed(TOKEN, "{\"client_id\":\"" + clientId + "\",\"fqdn\":\"" + t.fqdn + "\",\"timestamp\":\""
                + TimestampWindow.now(java.time.Clock.systemUTC()) + "\"}", t.key.getPrivate(), t.certUuid);
    }

    static ValidatableResponse clientList(Tenant t) {
        return signed(CLIENTS, "{\"fqdn\":\"" + t.fqdn + "\",\"timestamp\":\""
                + TimestampWindow.now(java.time.Clock.systemUTC()) + "\"}", t.key.getPrivate(), t.certUuid);
    }

    static JsonNode claims(String jwt) throws Exception {
        return JSON.readTree(Base64.getUrlDecoder().decode(jwt.split("\\.")[1]));
    }

    static ValidatableResponse operator(String path) {
        return given().header("Authorization", Fixtures.OPERATOR).post(path).then();
    }

    static void refused(ValidatableResponse r, int status, String code) {
        r.statusCode(status).contentType(ContentType.JSON).body("error_code", equalTo(code))
                .body("error_message", notNullValue());
    }

    static JsonNode revocations() throws Exception {
        String body = given().header("Authorization", INTERNAL).get("/internal/v1/revocations").then()
                .statusCode(200).contentType(ContentType.JSON).extract().asString();
        return JSON.readTree(body);
    }

    /** The list's entry for kind and id, or null. */
    static JsonNode entry(JsonNode list, String kind, String id) {
        for (JsonNode e : list.get("revoked")) {
            if (e.get("kind").asText().equals(kind) && e.get("id").asText().equals(id)) {
                return e;
            }
        }
        return null;
    }

    static String lastAuditTarget(String action) {
        List<Map<String, Object>> actions = given().header("Authorization", Fixtures.OPERATOR)
                .get("/admin/v1/audit").then().statusCode(200).extract().path("findAll { it.action == '" + action
                        + "' }");
        assertFalse(actions.isEmpty(), "no audit record of " + action);
        assertEquals("ok", actions.get(0).get("outcome"));
        return (String) actions.get(0).get("target");
    }

    @Test
    void aTokenCarriesTheSigningCertificatesSha256() throws Exception {
        Tenant t = tenant("claims.example.com");
        String clientId = Fixtures.client(t.accountId, "claims");
        JsonNode claims = claims(token(t, clientId).statusCode(200).extract().path("access_token"));
        assertEquals(t.fingerprint, claims.get("cert_sha256").asText());
        assertEquals(clientId, claims.get("client_id").asText());
        assertEquals(t.accountId, claims.get("account_id").asText());
        // the CA-signed path: the signing certificate is the chain's first
        String body = "{\"client_id\":\"" + Fixtures.client(Fixtures.account(FQDN), "ca") + "\",\"fqdn\":\"" + FQDN
                + "\",\"timestamp\":\"" + TimestampWindow.now(java.time.Clock.systemUTC()) + "\"}";
        String caToken = given().contentType(ContentType.JSON).body(body)
                .header("Signature",
                        new ManagementRequestSigner(ClientPkiResource.ecLeaf.key().getPrivate()).sign(body))
                .header("SignatureCertChainUrl", "https://" + FQDN + "/client.api/ec.pem").post(TOKEN).then()
                .statusCode(200).extract().path("access_token");
        assertEquals(Fingerprints.sha256(ClientPkiResource.ecLeaf.cert()),
                claims(caToken).get("cert_sha256").asText());
    }

    @Test
    void aDisabledClientGetsNoTokenIsListedAndEnablingKeepsItsOldTokensRevoked() throws Exception {
        Tenant t = tenant("client-disable.example.com");
        String clientId = Fixtures.client(t.accountId, "to disable");
        String other = Fixtures.client(t.accountId, "stays");
        long iat = claims(token(t, clientId).statusCode(200).extract().path("access_token")).get("iat").asLong();
        assertNull(entry(revocations(), "client", clientId), "listed before it was disabled");

        Instant before = Instant.now();
        String path = "/admin/v1/accounts/" + t.accountId + "/clients/" + clientId + "/disable";
        String disabledAt = operator(path).statusCode(200).body("client_id", equalTo(clientId))
                .body("disabled_at", notNullValue()).extract().path("disabled_at");
        assertTrue(!Instant.parse(disabledAt).isBefore(before.minusSeconds(1)));
        assertEquals("accountId=" + t.accountId + ", clientId=" + clientId,
                lastAuditTarget("POST /admin/v1/accounts/{accountId}/clients/{clientId}/disable"));
        // disabling again keeps the first date
        operator(path).statusCode(200).body("disabled_at", equalTo(disabledAt));
        given().header("Authorization", Fixtures.OPERATOR).get("/admin/v1/accounts/" + t.accountId + "/clients")
                .then().statusCode(200).body("find { it.client_id == '" + clientId + "' }.disabled_at",
                        equalTo(disabledAt));

        var refused = token(t, clientId);
        refused(refused, 403, "CLIENT_DISABLED");
        token(t, other).statusCode(200);
        // the signed client enumeration keeps the shape of spec 4.2
        clientList(t).statusCode(200).body("clients.client_id", hasItem(clientId))
                .body("clients.find { it.client_id == '" + clientId + "' }.containsKey('disabled_at')",
                        equalTo(false));

        JsonNode list = revocations();
        Instant asOf = Instant.parse(list.get("as_of").asText());
        assertFalse(asOf.isBefore(Instant.parse(disabledAt)));
        JsonNode e = entry(list, "client", clientId);
        assertNotNull(e, list.toString());
        assertTrue(e.get("disabled").asBoolean());
        Instant issuedBefore = Instant.parse(e.get("tokens_issued_before").asText());
        assertTrue(iat < issuedBefore.getEpochSecond(), "the token issued before the disable is not matched");
        assertEquals(AccountService.nextSecond(Instant.parse(disabledAt)), issuedBefore);
        assertNull(entry(list, "client", other));

        operator("/admin/v1/accounts/" + t.accountId + "/clients/" + clientId + "/enable").statusCode(200)
                .body("containsKey('disabled_at')", equalTo(false));
        long newIat = claims(token(t, clientId).statusCode(200).extract().path("access_token")).get("iat").asLong();
        JsonNode after = entry(revocations(), "client", clientId);
        assertNotNull(after, "enabled again, yet its old tokens are no longer listed");
        assertFalse(after.get("disabled").asBoolean());
        assertEquals(issuedBefore.toString(), Instant.parse(after.get("tokens_issued_before").asText()).toString());
        assertTrue(newIat >= issuedBefore.getEpochSecond() || newIat == issuedBefore.getEpochSecond() - 1,
                "iat " + newIat);
    }

    @Test
    void aDisabledAccountGetsNoTokenNorClientListAndIsListed() throws Exception {
        Tenant t = tenant("account-disable.example.com");
        String clientId = Fixtures.client(t.accountId, "shop");
        token(t, clientId).statusCode(200);
        String disabledAt = operator("/admin/v1/accounts/" + t.accountId + "/disable").statusCode(200)
                .body("account_id", equalTo(t.accountId)).body("disabled_at", notNullValue()).extract()
                .path("disabled_at");
        assertEquals("accountId=" + t.accountId, lastAuditTarget("POST /admin/v1/accounts/{accountId}/disable"));
        given().header("Authorization", Fixtures.OPERATOR).get("/admin/v1/accounts/" + t.accountId).then()
                .statusCode(200).body("disabled_at", equalTo(disabledAt));
        refused(token(t, clientId), 403, "ACCOUNT_DISABLED");
        refused(clientList(t), 403, "ACCOUNT_DISABLED");
        JsonNode e = entry(revocations(), "account", t.accountId);
        assertNotNull(e);
        assertTrue(e.get("disabled").asBoolean());
        assertEquals(AccountService.nextSecond(Instant.parse(disabledAt)).toString(),
                Instant.parse(e.get("tokens_issued_before").asText()).toString());

        operator("/admin/v1/accounts/" + t.accountId + "/enable").statusCode(200).body("disabled_at", nullValue());
        token(t, clientId).statusCode(200);
        clientList(t).statusCode(200);
        JsonNode enabled = entry(revocations(), "account", t.accountId);
        assertFalse(enabled.get("disabled").asBoolean());
    }

    @Test
    void revokedAndBlockedCertificatesAreListedByTheirSha256() throws Exception {
        Tenant t = tenant("cert-revoke.example.com");
        String clientId = Fixtures.client(t.accountId, "shop");
        token(t, clientId).statusCode(200);
        assertNull(entry(revocations(), "certificate", t.fingerprint));
        given().header("Authorization", Fixtures.OPERATOR)
                .delete("/admin/v1/accounts/" + t.accountId + "/certificates/" + t.certUuid).then().statusCode(204);
        JsonNode revoked = entry(revocations(), "certificate", t.fingerprint);
        assertNotNull(revoked);
        assertTrue(revoked.get("disabled").asBoolean());

        String leaf = Fingerprints.sha256(ClientPkiResource.rsaLeaf.cert());
        given().header("Authorization", Fixtures.OPERATOR).contentType(ContentType.JSON)
                .body(Map.of("reason", "key leaked")).put("/admin/v1/certificate-blocks/" + leaf).then()
                .statusCode(200);
        try {
            JsonNode blocked = entry(revocations(), "certificate", leaf);
            assertNotNull(blocked);
            assertTrue(blocked.get("disabled").asBoolean());
            assertNotNull(blocked.get("tokens_issued_before").asText());
        } finally {
            given().header("Authorization", Fixtures.OPERATOR).delete("/admin/v1/certificate-blocks/" + leaf).then()
                    .statusCode(204);
        }
    }

    @Test
    void refusalsChangeNothing() throws Exception {
        Tenant t = tenant("refusals.example.com");
        String clientId = Fixtures.client(t.accountId, "shop");
        String otherAccount = Fixtures.account("refusals-other.example.com");
        refused(operator("/admin/v1/accounts/no-such-account/disable"), 404, "ACCOUNT_NOT_FOUND");
        refused(operator("/admin/v1/accounts/" + otherAccount + "/clients/" + clientId + "/disable"), 404,
                "CLIENT_NOT_FOUND");
        refused(operator("/admin/v1/accounts/" + t.accountId + "/clients/no-such-client/disable"), 404,
                "CLIENT_NOT_FOUND");
        refused(given().post("/admin/v1/accounts/" + t.accountId + "/disable").then(), 401, "UNAUTHORIZED");
        refused(given().header("Authorization", INTERNAL).post("/admin/v1/accounts/" + t.accountId + "/disable")
                .then(), 403, "FORBIDDEN");
        token(t, clientId).statusCode(200);
        assertNull(entry(revocations(), "client", clientId));
        assertNull(entry(revocations(), "account", t.accountId));

        refused(given().get("/internal/v1/revocations").then(), 401, "UNAUTHORIZED");
        refused(given().header("Authorization", Fixtures.OPERATOR).get("/internal/v1/revocations").then(), 403,
                "FORBIDDEN");
        refused(given().header("Authorization", INTERNAL).queryParam("since", "x").get("/internal/v1/revocations")
                .then(), 400, "UNKNOWN_PARAMETER");
    }
}
