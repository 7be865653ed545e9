package com.convplatform.management.signed;

import static com.convplatform.management.ClientPkiResource.FQDN;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.emptyString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.AlgorithmParameters;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPoint;
import java.security.spec.ECPublicKeySpec;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.convplatform.crypto.management.ManagementRequestSigner;
import com.convplatform.crypto.pki.CertificateBuilder;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.crypto.time.TimestampWindow;
import com.convplatform.management.ClientPkiResource;
import com.convplatform.management.Fixtures;
import com.convplatform.testsupport.ManagementInterface;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;

/** The signed API over HTTP: both certificate paths, RSA and ECDSA, the token, and every rejection code. */
@QuarkusTest
@QuarkusTestResource(ClientPkiResource.class)
class SignedApiTest {
    static final String BASE = "https://" + FQDN + "/client.api/";
    static final String TOKEN = "/platform/management/token/issue/";
    static final String CLIENTS = "/platform/management/clients/";

    String accountId;
    String clientId;

    @BeforeEach
    void account() {
        accountId = Fixtures.account(FQDN);
        clientId = Fixtures.client(accountId, "web shop");
    }

    static String tokenBody(String clientId, String ts) {
        return "{\"client_id\":\"" + clientId + "\",\"fqdn\":\"" + FQDN + "\",\"timestamp\":\"" + ts + "\"}";
    }

    static String now() {
        return TimestampWindow.format(Instant.now());
    }

    static ValidatableResponse send(String path, String body, PrivateKey key, String certUrl, String certUuid) {
        var req = given().contentType(ContentType.JSON).body(body.getBytes(StandardCharsets.UTF_8));
        if (key != null) {
            req.header("Signature", new ManagementRequestSigner(key).sign(body));
        }
        if (certUrl != null) {
            req.header("SignatureCertChainUrl", certUrl);
        }
        if (certUuid != null) {
            req.header("SignatureCertUUID", certUuid);
        }
        return req.post(path).then();
    }

    static void refused(ValidatableResponse r, int status, String code) {
        r.statusCode(status).contentType(ContentType.JSON).body("error_code", equalTo(code))
                .body("error_message", not(emptyString()));
    }

    @Test
    void rsaChainIssuesATokenThatVerifiesAgainstTheJwks() throws Exception {
        String token = send(TOKEN, tokenBody(clientId, now()), ClientPkiResource.rsaLeaf.key().getPrivate(),
                BASE + "rsa.pem", null).statusCode(200).body("token_type", equalTo("Bearer"))
                .body("expires_in", equalTo(3600)).body("client_id", equalTo(clientId)).extract()
                .path("access_token");
        JsonNode claims = verifyJwt(token);
        assertEquals(clientId, claims.get("sub").asText());
        assertEquals(clientId, claims.get("client_id").asText());
        assertEquals(accountId, claims.get("account_id").asText());
        assertEquals("platform-management", claims.get("iss").asText());
        assertEquals("platform-api", claims.get("aud").asText());
        assertEquals(3600, claims.get("exp").asLong() - claims.get("iat").asLong());
        assertTrue(claims.hasNonNull("jti") && claims.hasNonNull("business_id"));
    }

    @Test
    void ecChainWorksOnTheJwtIssuePathAndWithDotSegmentsInTheUrl() {
        send("/jwt/issue", tokenBody(clientId, now()), ClientPkiResource.ecLeaf.key().getPrivate(),
                "HTTPS://Client.Example.com:443/client.api/../client.api/ec.pem", null).statusCode(200)
                .body("client_id", equalTo(clientId));
    }

    @Test
    void clientEnumerationListsTheAccountsClients() {
        String body = "{\"fqdn\":\"" + FQDN + "\",\"timestamp\":\"" + now() + "\"}";
        send(CLIENTS, body, ClientPkiResource.ecLeaf.key().getPrivate(), BASE + "ec.pem", null).statusCode(200)
                .body("clients.client_id", hasItem(clientId)).body("clients.name", hasItem("web shop"));
    }

    /** The enumeration is held in memory; a client the operator adds here is listed by the very next request. */
    @Test
    void aClientAddedByTheOperatorIsListedAtOnceAfterTheLastOfTheList() {
        String body = "{\"fqdn\":\"" + FQDN + "\",\"timestamp\":\"" + now() + "\"}";
        var key = ClientPkiResource.ecLeaf.key().getPrivate();
        send(CLIENTS, body, key, BASE + "ec.pem", null).statusCode(200).body("clients.client_id", hasItem(clientId));
        String added = Fixtures.client(accountId, "added now");
        List<String> listed = send(CLIENTS, body, key, BASE + "ec.pem", null).statusCode(200).extract().jsonPath()
                .getList("clients.client_id", String.class);
        assertEquals(added, listed.get(listed.size() - 1), "the newest client last: " + listed);
    }

    @Test
    void selfSignedRegisteredCertificateWorksUntilRevoked() {
        var kp = KeyPairs.ecP256();
        var cert = CertificateBuilder.selfSigned(kp, FQDN, Instant.now().plusSeconds(86400), FQDN);
        String uuid = Fixtures.certificate(accountId, cert);
        send(TOKEN, tokenBody(clientId, now()), kp.getPrivate(), null, uuid).statusCode(200);
        given().header("Authorization", Fixtures.OPERATOR)
                .delete("/admin/v1/accounts/" + accountId + "/certificates/" + uuid).then().statusCode(204);
        refused(send(TOKEN, tokenBody(clientId, now()), kp.getPrivate(), null, uuid), 400, "NOT_AUTHENTICATED");
    }

    @Test
    void aClientAddedAfterTheAccountWasUsedCanHaveATokenAtOnce() {
        send(TOKEN, tokenBody(clientId, now()), ClientPkiResource.ecLeaf.key().getPrivate(), BASE + "ec.pem", null)
                .statusCode(200);
        String unknown = java.util.UUID.randomUUID().toString();
        refused(send(TOKEN, tokenBody(unknown, now()), ClientPkiResource.ecLeaf.key().getPrivate(), BASE + "ec.pem",
                null), 403, "CLIENT_NOT_IN_ACCOUNT");
        String added = Fixtures.client(accountId, "added later");
        send(TOKEN, tokenBody(added, now()), ClientPkiResource.ecLeaf.key().getPrivate(), BASE + "ec.pem", null)
                .statusCode(200).body("client_id", equalTo(added));
    }

    @Test
    void certificateLocationRejections() {
        PrivateKey k = ClientPkiResource.ecLeaf.key().getPrivate();
        String b = tokenBody(clientId, now());
        refused(send(TOKEN, b, k, null, null), 400, "CERT_HEADERS");
        refused(send(TOKEN, b, k, BASE + "ec.pem", UUID.randomUUID().toString()), 400, "CERT_HEADERS");
        refused(send(TOKEN, b, k, "http://" + FQDN + "/client.api/ec.pem", null), 400, "CERT_URL_SCHEME");
        refused(send(TOKEN, b, k, "https://other.example.com/client.api/ec.pem", null), 400, "CERT_URL_HOST");
        refused(send(TOKEN, b, k, "https://" + FQDN + "/Client.api/ec.pem", null), 400, "CERT_URL_PATH");
        refused(send(TOKEN, b, k, "https://" + FQDN + "/client.api/../ec.pem", null), 400, "CERT_URL_PATH");
        refused(send(TOKEN, b, k, "https://" + FQDN + ":8443/client.api/ec.pem", null), 400, "CERT_URL_PORT");
        refused(send(TOKEN, b, k, BASE + "ec.pem?x=1", null), 400, "CERT_URL_MALFORMED");
        refused(send(TOKEN, b, k, null, UUID.randomUUID().toString()), 400, "NOT_AUTHENTICATED");
    }

    @Test
    void certificateValidityRejections() {
        PrivateKey k = ClientPkiResource.ecLeaf.key().getPrivate();
        String b = tokenBody(clientId, now());
        refused(send(TOKEN, b, k, BASE + "missing.pem", null), 400, "NOT_AUTHENTICATED");
        refused(send(TOKEN, b, k, BASE + "junk.pem", null), 400, "NOT_AUTHENTICATED");
        refused(send(TOKEN, b, ClientPkiResource.otherHostLeaf.key().getPrivate(), BASE + "wrong-san.pem", null),
                400, "NOT_AUTHENTICATED");
        refused(send(TOKEN, b, k, BASE + "leaf-only.pem", null), 400, "NOT_AUTHENTICATED");
        refused(send(TOKEN, b, ClientPkiResource.expiredLeaf.key().getPrivate(), BASE + "expired.pem", null), 400,
                "NOT_AUTHENTICATED");
        refused(send(TOKEN, b, ClientPkiResource.weakLeaf.key().getPrivate(), BASE + "weak.pem", null), 400,
                "NOT_AUTHENTICATED");
    }

    @Test
    void signatureAndTimestampRejections() {
        PrivateKey k = ClientPkiResource.ecLeaf.key().getPrivate();
        String b = tokenBody(clientId, now());
        refused(given().contentType(ContentType.JSON).body(b).header("Signature", "not base64!")
                .header("SignatureCertChainUrl", BASE + "ec.pem").post(TOKEN).then(), 400, "NOT_AUTHENTICATED");
        String signature = new ManagementRequestSigner(k).sign(b);
        String tampered = b.replace("\"fqdn\"", " \"fqdn\"");
        refused(given().contentType(ContentType.JSON).body(tampered).header("Signature", signature)
                .header("SignatureCertChainUrl", BASE + "ec.pem").post(TOKEN).then(), 400, "NOT_AUTHENTICATED");
        refused(send(TOKEN, b, ClientPkiResource.otherHostLeaf.key().getPrivate(), BASE + "ec.pem", null), 400,
                "NOT_AUTHENTICATED");
        // An RSA signature is not a DER ECDSA signature: refused as malformed before any verification.
        refused(send(TOKEN, b, ClientPkiResource.rsaLeaf.key().getPrivate(), BASE + "ec.pem", null), 400,
                "NOT_AUTHENTICATED");
        refused(send(TOKEN, tokenBody(clientId, "2026-11-22 10:00:00"), k, BASE + "ec.pem", null), 400,
                "TIMESTAMP_MALFORMED");
        refused(send(TOKEN, tokenBody(clientId, TimestampWindow.format(Instant.now().minusSeconds(600))), k,
                BASE + "ec.pem", null), 400, "TIMESTAMP_OUT_OF_WINDOW");
        refused(send(TOKEN, tokenBody(clientId, TimestampWindow.format(Instant.now().plusSeconds(600))), k,
                BASE + "ec.pem", null), 400, "TIMESTAMP_OUT_OF_WINDOW");
    }

    @Test
    void bodyAndAccountRejections() {
        PrivateKey k = ClientPkiResource.ecLeaf.key().getPrivate();
        refused(send(TOKEN, tokenBody(UUID.randomUUID().toString(), now()), k, BASE + "ec.pem", null), 403,
                "CLIENT_NOT_IN_ACCOUNT");
        String unknown = "{\"client_id\":\"" + clientId + "\",\"fqdn\":\"nobody.example.com\",\"timestamp\":\""
                + now() + "\"}";
        refused(send(TOKEN, unknown, k, "https://nobody.example.com/client.api/ec.pem", null), 400,
                "NOT_AUTHENTICATED");
        // the URL's rules hold for an unknown FQDN as for a known one
        refused(send(TOKEN, unknown, k, BASE + "ec.pem", null), 400, "CERT_URL_HOST");
        refused(send(TOKEN, "{\"fqdn\":\"" + FQDN + "\",\"timestamp\":\"" + now() + "\"}", k, BASE + "ec.pem", null),
                400, "MISSING_FIELD");
        refused(send(TOKEN, "{not json", k, BASE + "ec.pem", null), 400, "MALFORMED_JSON");
        refused(send(TOKEN, "[1,2]", k, BASE + "ec.pem", null), 400, "MALFORMED_JSON");
        // correctly signed, but data after the object: not one JSON object (issue 22)
        refused(send(TOKEN, tokenBody(clientId, now()) + " {\"client_id\":\"other\"}", k, BASE + "ec.pem", null), 400,
                "MALFORMED_JSON");
        refused(send(TOKEN, tokenBody(clientId, now()) + "x", k, BASE + "ec.pem", null), 400, "MALFORMED_JSON");
        String dup = "{\"client_id\":\"" + clientId + "\",\"fqdn\":\"" + FQDN + "\",\"fqdn\":\"" + FQDN
                + "\",\"timestamp\":\"" + now() + "\"}";
        refused(send(TOKEN, dup, k, BASE + "ec.pem", null), 400, "MALFORMED_JSON");
        // spec 5.1: the body is UTF-8; one in UTF-16, signed over its own bytes, is refused (Jackson would read it)
        for (java.nio.charset.Charset utf16 : List.of(StandardCharsets.UTF_16LE, StandardCharsets.UTF_16)) {
            byte[] wide = tokenBody(clientId, now()).getBytes(utf16);
            given().contentType(ContentType.JSON).body(wide).header("Signature", new ManagementRequestSigner(k)
                    .sign(wide)).header("SignatureCertChainUrl", BASE + "ec.pem").post(TOKEN).then().statusCode(400)
                    .body("error_code", equalTo("MALFORMED_JSON"))
                    .body("error_message", containsString("UTF-8"));
        }
        refused(given().contentType(ContentType.TEXT).body(tokenBody(clientId, now())).post(TOKEN).then(), 415,
                "UNSUPPORTED_MEDIA_TYPE");
        String big = "{\"client_id\":\"" + clientId + "\",\"fqdn\":\"" + FQDN + "\",\"pad\":\"" + "x".repeat(70_000)
                + "\",\"timestamp\":\"" + now() + "\"}";
        refused(send(TOKEN, big, k, BASE + "ec.pem", null), 413, "BODY_TOO_LARGE");
    }

    @Test
    void rejectionsAreCountedPerCodeInTheMetrics() {
        refused(send(TOKEN, tokenBody(clientId, now()), ClientPkiResource.ecLeaf.key().getPrivate(), null, null),
                400, "CERT_HEADERS");
        String metrics = given().get(ManagementInterface.url("/q/metrics")).then().statusCode(200).extract().asString();
        assertTrue(metrics.contains("management_signed_rejections_total{code=\"CERT_HEADERS\""), metrics);
        assertTrue(metrics.contains("management_signed_verification_seconds"), "verification timer");
    }

    /** Verifies an ES256 JWT against the service's JWKS and returns its claims. */
    static JsonNode verifyJwt(String token) throws Exception {
        String[] parts = token.split("\\.");
        assertEquals(3, parts.length);
        ObjectMapper json = new ObjectMapper();
        JsonNode header = json.readTree(Base64.getUrlDecoder().decode(parts[0]));
        assertEquals("ES256", header.get("alg").asText());
        String kid = header.get("kid").asText();
        List<Map<String, Object>> keys = given().get("/platform/management/jwks.json").then().statusCode(200)
                .extract().path("keys");
        Map<String, Object> jwk = keys.stream().filter(k -> kid.equals(k.get("kid"))).findFirst().orElseThrow();
        AlgorithmParameters params = AlgorithmParameters.getInstance("EC");
        params.init(new ECGenParameterSpec("secp256r1"));
        ECParameterSpec spec = params.getParameterSpec(ECParameterSpec.class);
        ECPoint w = new ECPoint(new BigInteger(1, Base64.getUrlDecoder().decode((String) jwk.get("x"))),
                new BigInteger(1, Base64.getUrlDecoder().decode((String) jwk.get("y"))));
        ECPublicKey pub = (ECPublicKey) KeyFactory.getInstance("EC").generatePublic(new ECPublicKeySpec(w, spec));
        Signature s = Signature.getInstance("SHA256withECDSAinP1363Format");
        s.initVerify(pub);
        s.update((parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII));
        assertTrue(s.verify(Base64.getUrlDecoder().decode(parts[2])), "JWT signature does not verify with the JWKS");
        return json.readTree(Base64.getUrlDecoder().decode(parts[1]));
    }
}
