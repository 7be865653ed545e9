package com.convplatform.management.admin;

import static com.convplatform.management.Fixtures.OPERATOR;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.notNullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pki.CertificateBuilder;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.management.ClientPkiResource;
import com.convplatform.management.Fixtures;
import com.convplatform.testsupport.ManagementInterface;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;

/** The operator and internal APIs over HTTP: keys, validation, certificates, revocation and key rotation. */
@QuarkusTest
@QuarkusTestResource(ClientPkiResource.class)
class AdminApiTest {

    static ValidatableResponse post(String path, Object body) {
        return given().header("Authorization", OPERATOR).contentType(ContentType.JSON).body(body).post(path).then();
    }

    static void refused(ValidatableResponse r, int status, String code) {
        r.statusCode(status).body("error_code", equalTo(code)).body("error_message", notNullValue());
    }

    static String uniqueFqdn() {
        return "c" + UUID.randomUUID().toString().substring(0, 8) + ".example.org";
    }

    static String digits() {
        return String.valueOf(Math.abs(UUID.randomUUID().getLeastSignificantBits() % 1_000_000_000_000L));
    }

    @Test
    void theOperatorKeyIsRequiredAndCheckedOnEveryEndpoint() {
        refused(given().get("/admin/v1/accounts").then(), 401, "UNAUTHORIZED");
        refused(given().header("Authorization", "Bearer wrong").get("/admin/v1/accounts").then(), 401,
                "UNAUTHORIZED");
        refused(given().header("Authorization", "test-operator-key").get("/admin/v1/accounts").then(), 401,
                "UNAUTHORIZED");
        refused(given().header("Authorization", "Bearer wrong").contentType(ContentType.JSON)
                .body(Map.of("name", "x")).post("/admin/v1/accounts").then(), 401, "UNAUTHORIZED");
        given().header("Authorization", OPERATOR).get("/admin/v1/accounts").then().statusCode(200);
    }

    @Test
    void everyAnswerCarriesTheRequestIdWhichIsItsTraceIdNotTheCallersOwn() {
        given().header("Authorization", OPERATOR).header("X-Request-Id", "hook-lookup-9")
                .header("traceparent", "00-9bf92f3577b34da6a3ce929d0e0e4741-00f067aa0ba902b7-01")
                .get("/admin/v1/accounts")
                .then().statusCode(200).header("X-Request-Id", "9bf92f3577b34da6a3ce929d0e0e4741");
        given().header("X-Request-Id", "hook-lookup-9").get("/admin/v1/accounts").then().statusCode(401)
                .header("X-Request-Id", org.hamcrest.Matchers.matchesPattern("[0-9a-f]{32}"));
        given().header("X-Request-Id", "x".repeat(65)).get("/platform/management/jwks.json").then().statusCode(200)
                .header("X-Request-Id", org.hamcrest.Matchers.matchesPattern("[0-9a-f]{32}"));
    }

    @Test
    void accountsAreCreatedListedAndFetched() {
        String fqdn = uniqueFqdn();
        String business = digits();
        String id = post("/admin/v1/accounts", Map.of("name", "Shop", "fqdn", fqdn.toUpperCase(), "business_id",
                business, "webhook_url", "https://" + fqdn + "/hooks")).statusCode(201)
                .body("fqdn", equalTo(fqdn)).body("business_id", equalTo(business)).body("created_at", notNullValue())
                .body("account_id", matchesPattern("[0-9a-f-]{36}")).extract().path("account_id");
        given().header("Authorization", OPERATOR).queryParam("q", fqdn).get("/admin/v1/accounts").then()
                .statusCode(200).body("account_id", hasItem(id));
        given().header("Authorization", OPERATOR).get("/admin/v1/accounts/" + id).then().statusCode(200)
                .body("webhook_url", equalTo("https://" + fqdn + "/hooks"));
        refused(given().header("Authorization", OPERATOR).get("/admin/v1/accounts/" + UUID.randomUUID()).then(), 404,
                "ACCOUNT_NOT_FOUND");
    }

    @Test
    void accountValidationAndUniqueness() {
        String fqdn = uniqueFqdn();
        String business = digits();
        post("/admin/v1/accounts", Map.of("name", "A", "fqdn", fqdn, "business_id", business, "webhook_url",
                "https://" + fqdn + "/h")).statusCode(201);
        refused(post("/admin/v1/accounts", Map.of("name", "B", "fqdn", fqdn, "business_id", digits(),
                "webhook_url", "https://x.example.org/h")), 409, "FQDN_TAKEN");
        refused(post("/admin/v1/accounts", Map.of("name", "B", "fqdn", uniqueFqdn(), "business_id", business,
                "webhook_url", "https://x.example.org/h")), 409, "BUSINESS_TAKEN");
        for (String bad : new String[]{"localhost", "127.0.0.1", "client.example.com.", "https://a.example.com",
                "a_b.example.com"}) {
            refused(post("/admin/v1/accounts", Map.of("name", "B", "fqdn", bad, "business_id", digits(),
                    "webhook_url", "https://x.example.org/h")), 400, "INVALID_FQDN");
        }
        refused(post("/admin/v1/accounts", Map.of("name", "B", "fqdn", uniqueFqdn(), "business_id", "12a",
                "webhook_url", "https://x.example.org/h")), 400, "INVALID_BUSINESS_ID");
        refused(post("/admin/v1/accounts", Map.of("name", "B", "fqdn", uniqueFqdn(), "business_id", digits(),
                "webhook_url", "http://x.example.org/h")), 400, "INVALID_WEBHOOK_URL");
        refused(post("/admin/v1/accounts", Map.of("name", "", "fqdn", uniqueFqdn(), "business_id", digits(),
                "webhook_url", "https://x.example.org/h")), 400, "INVALID_NAME");
        refused(given().header("Authorization", OPERATOR).contentType(ContentType.JSON).body("{oops")
                .post("/admin/v1/accounts").then(), 400, "MALFORMED_JSON");
    }

    @Test
    void clientsBelongToAnAccount() {
        String id = Fixtures.account(uniqueFqdn());
        String client = Fixtures.client(id, "app");
        given().header("Authorization", OPERATOR).get("/admin/v1/accounts/" + id + "/clients").then()
                .statusCode(200).body("client_id", hasItem(client));
        refused(post("/admin/v1/accounts/" + UUID.randomUUID() + "/clients", Map.of("name", "x")), 404,
                "ACCOUNT_NOT_FOUND");
        refused(post("/admin/v1/accounts/" + id + "/clients", Map.of("name", " ")), 400, "INVALID_NAME");
    }

    @Test
    void selfSignedCertificatesAreCheckedRegisteredListedAndRevoked() {
        String fqdn = uniqueFqdn();
        String id = Fixtures.account(fqdn);
        String path = "/admin/v1/accounts/" + id + "/certificates";
        var kp = KeyPairs.ecP256();
        var good = CertificateBuilder.selfSigned(kp, fqdn, Instant.now().plusSeconds(86400), fqdn);
        String uuid = post(path, Map.of("certificate", Pem.toPem(good))).statusCode(201)
                .body("sha256_fingerprint", matchesPattern("[0-9a-f]{64}")).body("not_after", notNullValue())
                .body("created_at", notNullValue())
                .extract().path("certificate_uuid");

        var expired = CertificateBuilder.forKey(kp.getPublic()).commonName(fqdn).dnsNames(fqdn)
                .validity(Instant.now().minusSeconds(86400 * 2), Instant.now().minusSeconds(86400))
                .selfSigned(kp.getPrivate());
        refused(post(path, Map.of("certificate", Pem.toPem(expired))), 400, "CERT_EXPIRED");
        var wrongName = CertificateBuilder.selfSigned(kp, "other", Instant.now().plusSeconds(86400),
                "other.example.org");
        refused(post(path, Map.of("certificate", Pem.toPem(wrongName))), 400, "CERT_NAME_MISMATCH");
        var weak = KeyPairs.rsa(1024);
        refused(post(path, Map.of("certificate",
                Pem.toPem(CertificateBuilder.selfSigned(weak, fqdn, Instant.now().plusSeconds(86400), fqdn)))), 400,
                "CERT_KEY_UNSUPPORTED");
        var caIssued = ClientPkiResource.pki.leaf(KeyPairs.ecP256(), fqdn).cert();
        refused(post(path, Map.of("certificate", Pem.toPem(caIssued))), 400, "CERT_CHAIN_INVALID");
        refused(post(path, Map.of("certificate", "junk")), 400, "CERT_MALFORMED");
        refused(post(path, Map.of("certificate", Pem.toPem(kp.getPrivate()))), 400, "CERT_MALFORMED");
        refused(post(path, Map.of()), 400, "MISSING_FIELD");

        given().header("Authorization", OPERATOR).get(path).then().statusCode(200).body("$", hasSize(1))
                .body("[0].certificate_uuid", equalTo(uuid)).body("[0].revoked_at", equalTo(null));
        String otherAccount = "/admin/v1/accounts/" + Fixtures.account(uniqueFqdn()) + "/certificates/" + uuid;
        refused(given().header("Authorization", OPERATOR).delete(otherAccount).then(), 404, "CERTIFICATE_NOT_FOUND");
        given().header("Authorization", OPERATOR).delete(path + "/" + uuid).then().statusCode(204);
        given().header("Authorization", OPERATOR).get(path).then().body("[0].revoked_at", not(equalTo(null)));
        refused(given().header("Authorization", OPERATOR).delete(path + "/" + UUID.randomUUID()).then(), 404,
                "CERTIFICATE_NOT_FOUND");
    }

    @Test
    void registeringACertificateAgainAnswersItsExistingIdAndARevokedOneStaysRevoked() {
        String fqdn = uniqueFqdn();
        String path = "/admin/v1/accounts/" + Fixtures.account(fqdn) + "/certificates";
        var kp = KeyPairs.rsa(2048);
        var cert = CertificateBuilder.selfSigned(kp, fqdn, Instant.now().plusSeconds(86400), fqdn);
        String uuid = post(path, Map.of("certificate", Pem.toPem(cert))).statusCode(201)
                .extract().path("certificate_uuid");

        // The same certificate again, also with other PEM line breaks: its registration, not a second one.
        post(path, Map.of("certificate", Pem.toPem(cert))).statusCode(200).body("certificate_uuid", equalTo(uuid))
                .body("revoked_at", equalTo(null));
        post(path, Map.of("certificate", Pem.toPem(cert).replace("\n", "\r\n"))).statusCode(200)
                .body("certificate_uuid", equalTo(uuid));
        given().header("Authorization", OPERATOR).get(path).then().statusCode(200).body("$", hasSize(1));

        // Another certificate of the same key and name is another registration.
        var renewed = CertificateBuilder.selfSigned(kp, fqdn, Instant.now().plusSeconds(2 * 86400), fqdn);
        String second = post(path, Map.of("certificate", Pem.toPem(renewed))).statusCode(201)
                .extract().path("certificate_uuid");
        assertNotEquals(uuid, second);

        // The same certificate for another account fails its name check there, as any certificate of another FQDN.
        refused(post("/admin/v1/accounts/" + Fixtures.account(uniqueFqdn()) + "/certificates",
                Map.of("certificate", Pem.toPem(cert))), 400, "CERT_NAME_MISMATCH");

        // Revoked, it stays revoked: registering it again is refused, naming the revoked id; nothing is added.
        given().header("Authorization", OPERATOR).delete(path + "/" + uuid).then().statusCode(204);
        refused(post(path, Map.of("certificate", Pem.toPem(cert))), 409, "CERTIFICATE_REVOKED");
        post(path, Map.of("certificate", Pem.toPem(cert))).body("error_message", containsString(uuid));
        given().header("Authorization", OPERATOR).get(path).then().statusCode(200).body("$", hasSize(2))
                .body("find { it.certificate_uuid == '" + uuid + "' }.revoked_at", notNullValue());
    }

    @Test
    void internalAccountLookupNeedsTheInternalKey() {
        String fqdn = uniqueFqdn();
        String id = Fixtures.account(fqdn);
        given().header("Authorization", "Bearer test-internal-key").get("/internal/v1/accounts/" + id).then()
                .statusCode(200).body("fqdn", equalTo(fqdn)).body("webhook_url", equalTo("https://" + fqdn + "/hooks"))
                .body("business_id", notNullValue());
        refused(given().header("Authorization", OPERATOR).get("/internal/v1/accounts/" + id).then(), 403,
                "FORBIDDEN");
        refused(given().get("/internal/v1/accounts/" + id).then(), 401, "UNAUTHORIZED");
        refused(given().header("Authorization", "Bearer test-internal-key")
                .get("/internal/v1/accounts/" + UUID.randomUUID()).then(), 404, "ACCOUNT_NOT_FOUND");
    }

    @Test
    void theSigningKeyStateNamesTheKeyInUseItsFirstUseAndTheRotateByDate() {
        String kid = given().get("/platform/management/jwks.json").then().statusCode(200).extract()
                .path("keys[0].kid");
        ValidatableResponse state = given().header("Authorization", OPERATOR).get("/admin/v1/jwt/signing-key").then()
                .statusCode(200).body("kid", equalTo(kid)).body("algorithm", equalTo("ES256"))
                .body("source", equalTo("generated")).body("max_age", equalTo("P90D"));
        Instant firstUse = Instant.parse(state.extract().path("first_used_at"));
        assertTrue(!firstUse.isAfter(Instant.now()), "first used " + firstUse);
        // the date the gauge (and the alert ManagementJwtKeyOld) reads, and 90 days after it
        assertEquals(keyCreatedGauge(), firstUse.getEpochSecond(), 1.0);
        assertEquals(firstUse.plus(java.time.Duration.ofDays(90)), Instant.parse(state.extract().path("rotate_by")));

        refused(given().get("/admin/v1/jwt/signing-key").then(), 401, "UNAUTHORIZED");
        refused(given().header("Authorization", "Bearer wrong").get("/admin/v1/jwt/signing-key").then(), 401,
                "UNAUTHORIZED");
        refused(given().header("Authorization", "Bearer test-internal-key").get("/admin/v1/jwt/signing-key").then(),
                403, "FORBIDDEN");
        refused(given().header("Authorization", OPERATOR).get("/admin/v1/jwt/signing-key?kid=" + kid).then(), 400,
                "UNKNOWN_PARAMETER");
        given().get("/q/openapi?format=json").then().statusCode(200)
                .body("paths.'/admin/v1/jwt/signing-key'.get.responses.'200'.content.'application/json'.schema.$ref",
                        equalTo("#/components/schemas/SigningKeyState"))
                .body("components.schemas.SigningKeyState.properties.max_age.examples[0]", equalTo("P90D"))
                .body("components.schemas.SigningKeyState.properties.source.enum", hasItem("key-file"));
    }

    @Test
    void rotationKeepsThePreviousKeyInTheJwks() {
        String before = given().get("/platform/management/jwks.json").then().statusCode(200).extract()
                .path("keys[0].kid");
        long rotated = Instant.now().getEpochSecond();
        String after = post("/admin/v1/jwt/rotate", Map.of()).statusCode(200).extract().path("kid");
        // the key age the alert ManagementJwtKeyOld reads starts again with the new key
        double since = keyCreatedGauge();
        assertTrue(since >= rotated - 1 && since <= Instant.now().getEpochSecond(), "created at " + since);
        given().get("/platform/management/jwks.json").then().statusCode(200).body("keys[0].kid", equalTo(after))
                .body("keys.kid", hasItem(before)).body("keys[0].kty", equalTo("EC"))
                .body("keys[0].crv", equalTo("P-256"));
        // the operator API names the new key, with the new date
        String firstUse = given().header("Authorization", OPERATOR).get("/admin/v1/jwt/signing-key").then()
                .statusCode(200).body("kid", equalTo(after)).extract().path("first_used_at");
        assertEquals((long) since, Instant.parse(firstUse).getEpochSecond());
    }

    /** management_jwt_signing_key_created_timestamp_seconds, as scraped. */
    static double keyCreatedGauge() {
        String gauge = given().get(ManagementInterface.url("/q/metrics")).then().statusCode(200).extract().asString()
                .lines()
                .filter(l -> l.startsWith("management_jwt_signing_key_created_timestamp_seconds")).findFirst()
                .orElseThrow();
        return Double.parseDouble(gauge.substring(gauge.lastIndexOf(' ') + 1));
    }
}
