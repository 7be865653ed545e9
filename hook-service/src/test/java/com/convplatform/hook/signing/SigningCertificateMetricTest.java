package com.convplatform.hook.signing;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;

import org.junit.jupiter.api.Test;

import com.convplatform.testsupport.ManagementInterface;

import io.quarkus.test.junit.QuarkusTest;

/**
 * {@code hook_signing_certificate_not_after_timestamp_seconds}, what the certificate-expiry alerts read, is the notAfter
 * of the certificate the service signs with: the first of the chain it serves to receivers.
 */
@QuarkusTest
class SigningCertificateMetricTest {
    @Test
    void theGaugeIsTheServedSigningCertificatesNotAfterInUnixSeconds() throws Exception {
        String pem = given().get("/platform/hooks/certificate/").then().statusCode(200).extract()
                .path("certificate");
        X509Certificate leaf = (X509Certificate) CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)));
        String metrics = given().get(ManagementInterface.url("/q/metrics")).then().statusCode(200).extract().asString();
        String line = metrics.lines().filter(l -> l.startsWith("hook_signing_certificate_not_after_timestamp_seconds"))
                .findFirst().orElseThrow(() -> new AssertionError("no such gauge in:\n" + metrics));
        assertEquals(leaf.getNotAfter().toInstant().getEpochSecond(),
                Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)), 0.0, line);
    }
}
