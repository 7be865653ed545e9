package com.convplatform.management.signed;

import static com.convplatform.management.ClientPkiResource.FQDN;
import static com.convplatform.management.signed.SignedApiTest.now;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.convplatform.crypto.management.ManagementRequestSigner;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.management.ClientPkiResource;
import com.convplatform.management.Fixtures;
import com.convplatform.testsupport.ManagementInterface;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.ExtractableResponse;
import io.restassured.response.Response;

/**
 * Issue 39: a request without a valid signature cannot tell whether an FQDN is a customer's. The unknown FQDN and the
 * known one get the same status, error code and message, request by request; nothing is downloaded for the unknown.
 */
@QuarkusTest
@QuarkusTestResource(ClientPkiResource.class)
class UniformRefusalTest {
    static final String UNKNOWN = "not-a-customer.example.com";

    static ExtractableResponse<Response> send(String fqdn, String signature, String certUrl, String certUuid) {
        String body = "{\"fqdn\":\"" + fqdn + "\",\"timestamp\":\"" + now() + "\"}";
        var req = given().contentType(ContentType.JSON).body(body.getBytes(StandardCharsets.UTF_8));
        if (signature != null) {
            req.header("Signature", signature);
        }
        if (certUrl != null) {
            req.header("SignatureCertChainUrl", certUrl.replace("{fqdn}", fqdn));
        }
        if (certUuid != null) {
            req.header("SignatureCertUUID", certUuid);
        }
        return req.post(SignedApiTest.CLIENTS).then().contentType(ContentType.JSON).extract();
    }

    static String sign(PrivateKey key, String fqdn) {
        return new ManagementRequestSigner(key).sign("{\"fqdn\":\"" + fqdn + "\",\"timestamp\":\"" + now() + "\"}");
    }

    /** Status, code and message of both: the same, and the code expected. */
    static void same(String code, ExtractableResponse<Response> known, ExtractableResponse<Response> unknown) {
        assertEquals(code, known.path("error_code"), known.asString());
        assertEquals(Map.of("status", known.statusCode(), "body", known.as(Map.class)),
                Map.of("status", unknown.statusCode(), "body", unknown.as(Map.class)));
    }

    @Test
    void anUnknownFqdnAndAKnownOneWithoutAValidSignatureGetTheSameRefusal() {
        Fixtures.account(FQDN);
        String url = "https://{fqdn}/client.api/ec.pem";
        PrivateKey stranger = KeyPairs.ecP256().getPrivate();
        int chainHits = ClientPkiResource.server.hits("/client.api/ec.pem");

        // unsigned, with the tenant's real chain URL
        same(SignedRequestService.NOT_AUTHENTICATED, send(FQDN, null, url, null), send(UNKNOWN, null, url, null));
        // signed by a key that is not the certificate's (SIGNATURE_MISMATCH, inside)
        same(SignedRequestService.NOT_AUTHENTICATED, send(FQDN, sign(stranger, FQDN), url, null),
                send(UNKNOWN, sign(stranger, UNKNOWN), url, null));
        // a signature that is not Base64 (SIGNATURE_MALFORMED, inside)
        same(SignedRequestService.NOT_AUTHENTICATED, send(FQDN, "%%%", url, null), send(UNKNOWN, "%%%", url, null));
        // a registered-certificate id that is not the account's (CERT_UNKNOWN, inside)
        same(SignedRequestService.NOT_AUTHENTICATED, send(FQDN, sign(stranger, FQDN), null, "abc"),
                send(UNKNOWN, sign(stranger, UNKNOWN), null, "abc"));
        // a chain URL that does not exist (CERT_FETCH_FAILED, inside)
        same(SignedRequestService.NOT_AUTHENTICATED, send(FQDN, null, "https://{fqdn}/client.api/gone.pem", null),
                send(UNKNOWN, null, "https://{fqdn}/client.api/gone.pem", null));
        // the checks of the request alone are said, alike for both
        same("CERT_HEADERS", send(FQDN, null, null, null), send(UNKNOWN, null, null, null));
        same("CERT_HEADERS", send(FQDN, null, url, "abc"), send(UNKNOWN, null, url, "abc"));
        same("CERT_URL_SCHEME", send(FQDN, null, "http://{fqdn}/client.api/ec.pem", null),
                send(UNKNOWN, null, "http://{fqdn}/client.api/ec.pem", null));
        same("CERT_URL_PATH", send(FQDN, null, "https://{fqdn}/other/ec.pem", null),
                send(UNKNOWN, null, "https://{fqdn}/other/ec.pem", null));
        assertEquals(400, send(UNKNOWN, null, url, null).statusCode());
        // the known tenant's chain was downloaded at most once (then cached)
        int hits = ClientPkiResource.server.hits("/client.api/ec.pem");
        org.junit.jupiter.api.Assertions.assertTrue(hits <= chainHits + 1, "downloads " + (hits - chainHits));
    }

    @Test
    void theOperatorTellsTheReasonsApartByTheMetric() {
        Fixtures.account(FQDN);
        PrivateKey stranger = KeyPairs.ecP256().getPrivate();
        double unknownFqdn = unauthenticated("UNKNOWN_ACCOUNT");
        double unknownCertificate = unauthenticated("CERT_UNKNOWN");
        double gone = unauthenticated("CERT_FETCH_FAILED");
        send(UNKNOWN, sign(stranger, UNKNOWN), null, "abc");
        send(FQDN, sign(stranger, FQDN), null, "abc");
        send(FQDN, sign(stranger, FQDN), null, "abc");
        send(FQDN, null, "https://{fqdn}/client.api/gone.pem", null);
        assertEquals(unknownFqdn + 1, unauthenticated("UNKNOWN_ACCOUNT"), 0.0);
        assertEquals(unknownCertificate + 2, unauthenticated("CERT_UNKNOWN"), 0.0);
        assertEquals(gone + 1, unauthenticated("CERT_FETCH_FAILED"), 0.0);
    }

    /** management_signed_unauthenticated_total for one reason; 0 before its first count. */
    static double unauthenticated(String reason) {
        String metrics = given().get(ManagementInterface.url("/q/metrics")).then().statusCode(200).extract().asString();
        return metrics.lines().filter(l -> l.startsWith("management_signed_unauthenticated_total{")
                && l.contains("reason=\"" + reason + "\"")).mapToDouble(l -> Double.parseDouble(
                        l.substring(l.indexOf("} ") + 2).split(" ")[0])) // the value, before any exemplar
                .findFirst().orElse(0);
    }
}
