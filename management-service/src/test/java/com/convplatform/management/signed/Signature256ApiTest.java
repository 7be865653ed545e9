package com.convplatform.management.signed;

import static com.convplatform.management.ClientPkiResource.FQDN;
import static com.convplatform.management.signed.SignedApiTest.BASE;
import static com.convplatform.management.signed.SignedApiTest.CLIENTS;
import static com.convplatform.management.signed.SignedApiTest.TOKEN;
import static com.convplatform.management.signed.SignedApiTest.now;
import static com.convplatform.management.signed.SignedApiTest.refused;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.convplatform.crypto.management.ManagementRequestSigner;
import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pki.CertificateBuilder;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.crypto.testing.TestPki;
import com.convplatform.management.ClientPkiResource;
import com.convplatform.management.Fixtures;
import com.convplatform.testsupport.ManagementInterface;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;

/**
 * The Signature-256 header (SHA256withRSA / SHA256withECDSA over the same body bytes), this platform's extension of
 * spec 5.1, over HTTP: beside Signature or alone, both verified when both are sent, and an account that requires it
 * (the operator API's require_sha256) refusing a request signed with SHA-1 only.
 */
@QuarkusTest
@QuarkusTestResource(ClientPkiResource.class)
class Signature256ApiTest {
    String clientId;

    @BeforeEach
    void account() {
        clientId = Fixtures.client(Fixtures.account(FQDN), "sha-256 client");
    }

    static String tokenBody(String fqdn, String clientId) {
        return "{\"client_id\":\"" + clientId + "\",\"fqdn\":\"" + fqdn + "\",\"timestamp\":\"" + now() + "\"}";
    }

    /** Sends the body with the given signature headers (a null value: header not sent) and one certificate header. */
    static ValidatableResponse send(String path, String body, String signature, String signature256,
            String certHeader, String certValue) {
        var req = given().contentType(ContentType.JSON).body(body.getBytes(StandardCharsets.UTF_8))
                .header(certHeader, certValue);
        if (signature != null) {
            req.header("Signature", signature);
        }
        if (signature256 != null) {
            req.header("Signature-256", signature256);
        }
        return req.post(path).then();
    }

    static ValidatableResponse viaChain(String body, String signature, String signature256, String chain) {
        return send(TOKEN, body, signature, signature256, "SignatureCertChainUrl", BASE + chain);
    }

    static ManagementRequestSigner signer(PrivateKey key) {
        return new ManagementRequestSigner(key);
    }

    @Test
    void bothHeadersValidIssueATokenWithRsaAndEcChains() {
        for (var leaf : new TestPki.Leaf[]{ClientPkiResource.rsaLeaf, ClientPkiResource.ecLeaf}) {
            String body = tokenBody(FQDN, clientId);
            ManagementRequestSigner s = signer(leaf.key().getPrivate());
            String chain = leaf == ClientPkiResource.rsaLeaf ? "rsa.pem" : "ec.pem";
            viaChain(body, s.sign(body), s.sign256(body), chain).statusCode(200)
                    .body("client_id", equalTo(clientId)).body("token_type", equalTo("Bearer"));
        }
    }

    @Test
    void signature256AloneIsAcceptedWithoutSignature() {
        for (var leaf : new TestPki.Leaf[]{ClientPkiResource.rsaLeaf, ClientPkiResource.ecLeaf}) {
            String body = tokenBody(FQDN, clientId);
            String chain = leaf == ClientPkiResource.rsaLeaf ? "rsa.pem" : "ec.pem";
            viaChain(body, null, signer(leaf.key().getPrivate()).sign256(body), chain).statusCode(200)
                    .body("client_id", equalTo(clientId));
        }
        String list = "{\"fqdn\":\"" + FQDN + "\",\"timestamp\":\"" + now() + "\"}";
        send(CLIENTS, list, null, signer(ClientPkiResource.ecLeaf.key().getPrivate()).sign256(list),
                "SignatureCertChainUrl", BASE + "ec.pem").statusCode(200).body("clients.client_id", hasItem(clientId));
    }

    @Test
    void whenBothAreSentEachMustVerify() {
        ManagementRequestSigner s = signer(ClientPkiResource.rsaLeaf.key().getPrivate());
        String body = tokenBody(FQDN, clientId);
        String other = tokenBody(FQDN, clientId).replace("\"client_id\"", " \"client_id\"");
        // a good SHA-1 signature does not carry a wrong Signature-256 (which header failed is the operator's to see:
        // one refusal for every authentication failure, issue 39)
        refused(viaChain(body, s.sign(body), s.sign256(other), "rsa.pem"), 400, "NOT_AUTHENTICATED");
        // nor a good Signature-256 a wrong Signature
        refused(viaChain(body, s.sign(other), s.sign256(body), "rsa.pem"), 400, "NOT_AUTHENTICATED");
        // another key's Signature-256 beside the right key's Signature
        ManagementRequestSigner stranger = signer(KeyPairs.rsa().getPrivate());
        refused(viaChain(body, s.sign(body), stranger.sign256(body), "rsa.pem"), 400, "NOT_AUTHENTICATED");
        // a SHA-1 signature sent as Signature-256 is not a SHA-256 signature
        refused(viaChain(body, null, s.sign(body), "rsa.pem"), 400, "NOT_AUTHENTICATED");
    }

    @Test
    void aMalformedSignature256IsRefusedEvenBesideAGoodSignature() {
        ManagementRequestSigner s = signer(ClientPkiResource.ecLeaf.key().getPrivate());
        String body = tokenBody(FQDN, clientId);
        String good = s.sign(body);
        String good256 = s.sign256(body);
        for (String bad : new String[]{"not base64!", good256 + "A", good256.substring(4),
                signer(ClientPkiResource.rsaLeaf.key().getPrivate()).sign256(body)}) {
            refused(viaChain(body, good, bad, "ec.pem"), 400, "NOT_AUTHENTICATED");
        }
        viaChain(body, good, "%%%%", "ec.pem").body("error_message", containsString("Signature-256"));
        // and no signature header at all says what to send
        refused(viaChain(body, null, null, "ec.pem"), 400, "NOT_AUTHENTICATED");
        viaChain(body, null, null, "ec.pem").body("error_message", containsString("Signature-256"));
    }

    /** An account of its own (a fresh FQDN) with a registered self-signed certificate. */
    record SelfSigned(String fqdn, String accountId, String clientId, String certUuid, KeyPair keys) {
        ManagementRequestSigner signer() {
            return new ManagementRequestSigner(keys.getPrivate());
        }

        ValidatableResponse token(String signature, String signature256, String body) {
            return send(TOKEN, body, signature, signature256, "SignatureCertUUID", certUuid);
        }

        String body() {
            return tokenBody(fqdn, clientId);
        }
    }

    static SelfSigned selfSignedAccount(Boolean requireSha256, KeyPair keys) {
        String fqdn = "sha256-" + UUID.randomUUID().toString().substring(0, 8) + ".example.com";
        Map<String, Object> account = new LinkedHashMap<>();
        account.put("name", "SHA-256 " + fqdn);
        account.put("fqdn", fqdn);
        account.put("business_id",
                String.valueOf(Math.abs(UUID.randomUUID().getMostSignificantBits() % 1_000_000_000L)));
        account.put("webhook_url", "https://" + fqdn + "/hooks");
        if (requireSha256 != null) {
            account.put("require_sha256", requireSha256);
        }
        String accountId = given().header("Authorization", Fixtures.OPERATOR).contentType(ContentType.JSON)
                .body(account).post("/admin/v1/accounts").then().statusCode(201)
                .body("require_sha256", equalTo(Boolean.TRUE.equals(requireSha256))).extract().path("account_id");
        var cert = CertificateBuilder.selfSigned(keys, fqdn, Instant.now().plusSeconds(86400), fqdn);
        String uuid = given().header("Authorization", Fixtures.OPERATOR).contentType(ContentType.JSON)
                .body(Map.of("certificate", Pem.toPem(cert))).post("/admin/v1/accounts/" + accountId + "/certificates")
                .then().statusCode(201).extract().path("certificate_uuid");
        return new SelfSigned(fqdn, accountId, Fixtures.client(accountId, "web shop"), uuid, keys);
    }

    @Test
    void anAccountCreatedRequiringSha256RefusesASha1OnlyRequest() {
        for (KeyPair keys : new KeyPair[]{KeyPairs.rsa(), KeyPairs.ecP256()}) {
            SelfSigned a = selfSignedAccount(true, keys);
            String body = a.body();
            refused(a.token(a.signer().sign(body), null, body), 400, "SIGNATURE_256_REQUIRED");
            a.token(a.signer().sign(body), null, body).body("error_message", containsString("Signature-256"));
            // Signature-256 alone, or both: accepted
            a.token(null, a.signer().sign256(body), body).statusCode(200).body("client_id", equalTo(a.clientId()));
            a.token(a.signer().sign(body), a.signer().sign256(body), body).statusCode(200);
            // a Signature-256 that is there but wrong is refused as such, whatever Signature says
            String other = a.body().replace("\"fqdn\"", " \"fqdn\"");
            refused(a.token(a.signer().sign(body), a.signer().sign256(other), body), 400, "NOT_AUTHENTICATED");
            refused(a.token(a.signer().sign(body), "AAAA", body), 400, "NOT_AUTHENTICATED");
            // the requirement holds for client enumeration too
            String list = "{\"fqdn\":\"" + a.fqdn() + "\",\"timestamp\":\"" + now() + "\"}";
            refused(send(CLIENTS, list, a.signer().sign(list), null, "SignatureCertUUID", a.certUuid()), 400,
                    "SIGNATURE_256_REQUIRED");
        }
    }

    @Test
    void theOperatorApiSetsAndShowsTheFlagAndSignedRequestsFollowItAtOnce() {
        SelfSigned a = selfSignedAccount(null, KeyPairs.ecP256());
        String path = "/admin/v1/accounts/" + a.accountId();
        given().header("Authorization", Fixtures.OPERATOR).get(path).then().statusCode(200)
                .body("require_sha256", equalTo(false));
        String body = a.body();
        a.token(a.signer().sign(body), null, body).statusCode(200);

        given().header("Authorization", Fixtures.OPERATOR).contentType(ContentType.JSON)
                .body(Map.of("require_sha256", true)).patch(path).then().statusCode(200)
                .body("require_sha256", equalTo(true)).body("fqdn", equalTo(a.fqdn()))
                .body("account_id", equalTo(a.accountId()));
        given().header("Authorization", Fixtures.OPERATOR).get(path).then().statusCode(200)
                .body("require_sha256", equalTo(true));
        given().header("Authorization", Fixtures.OPERATOR).queryParam("q", a.accountId()).get("/admin/v1/accounts")
                .then().statusCode(200)
                .body("find { it.account_id == '" + a.accountId() + "' }.require_sha256", equalTo(true));
        String again = a.body();
        refused(a.token(a.signer().sign(again), null, again), 400, "SIGNATURE_256_REQUIRED");
        a.token(null, a.signer().sign256(again), again).statusCode(200);

        given().header("Authorization", Fixtures.OPERATOR).contentType(ContentType.JSON)
                .body(Map.of("require_sha256", false)).put(path).then().statusCode(200)
                .body("require_sha256", equalTo(false));
        String third = a.body();
        a.token(a.signer().sign(third), null, third).statusCode(200);
    }

    @Test
    void theOperatorApiRefusesWhatItCannotChange() {
        SelfSigned a = selfSignedAccount(false, KeyPairs.ecP256());
        String path = "/admin/v1/accounts/" + a.accountId();
        settings(path, Map.of("require_sha256", "yes"), 400, "INVALID_REQUIRE_SHA256");
        settings(path, Map.of(), 400, "MISSING_FIELD");
        settings(path, Map.of("require_sha256", true, "fqdn", "other.example.com"), 400, "FIELD_NOT_CHANGEABLE");
        settings(path, Map.of("webhook_url", "https://x.example.com/h"), 400, "FIELD_NOT_CHANGEABLE");
        settings("/admin/v1/accounts/" + UUID.randomUUID(), Map.of("require_sha256", true), 404,
                "ACCOUNT_NOT_FOUND");
        // nothing above changed the account
        given().header("Authorization", Fixtures.OPERATOR).get(path).then().statusCode(200)
                .body("require_sha256", equalTo(false)).body("fqdn", equalTo(a.fqdn()));
        given().contentType(ContentType.JSON).body(Map.of("require_sha256", true)).patch(path).then()
                .statusCode(401);
    }

    static void settings(String path, Map<String, Object> body, int status, String code) {
        for (String method : new String[]{"PATCH", "PUT"}) {
            refused(given().header("Authorization", Fixtures.OPERATOR).contentType(ContentType.JSON).body(body)
                    .request(method, path).then(), status, code);
        }
    }

    @Test
    void acceptedRequestsAreCountedByTheSignaturesTheyCarried() {
        ManagementRequestSigner s = signer(ClientPkiResource.rsaLeaf.key().getPrivate());
        String body = tokenBody(FQDN, clientId);
        viaChain(body, s.sign(body), s.sign256(body), "rsa.pem").statusCode(200);
        String only = tokenBody(FQDN, clientId);
        viaChain(only, null, s.sign256(only), "rsa.pem").statusCode(200);
        String metrics = given().get(ManagementInterface.url("/q/metrics")).then().statusCode(200).extract().asString();
        assertTrue(metrics.contains("management_signed_accepted_total{signatures=\"both\""), metrics);
        assertTrue(metrics.contains("management_signed_accepted_total{signatures=\"sha256\""), metrics);
    }
}
