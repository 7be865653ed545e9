package com.convplatform.hook.signing;

import static com.convplatform.hook.HookPlatformResource.CERT_HOST;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

import org.junit.jupiter.api.Test;

import com.convplatform.crypto.fetch.CertificateFetcher;
import com.convplatform.crypto.fetch.HostOverrides;
import com.convplatform.crypto.hook.HookVerifier;
import com.convplatform.hook.HookPlatformResource;
import com.convplatform.hook.delivery.HookDeliveryTest;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * The {@code hook.local-https.port} seam: the service itself serves its certificate document over HTTPS with the
 * signing certificate, and a hook it delivers verifies with crypto-common's verifier downloading from it (no other
 * HTTPS server involved).
 */
@QuarkusTest
@TestProfile(LocalHttpsListenerTest.LocalHttps.class)
@QuarkusTestResource(HookPlatformResource.class)
class LocalHttpsListenerTest {
    static final int PORT = freePort();

    public static class LocalHttps implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("hook.local-https.port", String.valueOf(PORT));
        }
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void aDeliveredHookVerifiesAgainstTheCertificateServedByTheLocalListener() throws Exception {
        HookVerifier verifier = HookVerifier.builder().platformDomains("platform.example")
                .trustAnchors(HookPlatformResource.pki.anchors())
                .fetcher(CertificateFetcher.withDefaults(HookPlatformResource.pki.clientContext(),
                        HostOverrides.parse(List.of(CERT_HOST + "=127.0.0.1:" + PORT))))
                .build();
        String account = "local-https-" + UUID.randomUUID();
        HookDeliveryTest.intake(HookDeliveryTest.event(account, 1), 202);
        HookPlatformResource.Received hook = HookDeliveryTest.awaitHooks(account, 1).get(0);

        HookVerifier.Verified v = verifier.verify(hook.header("signature"), hook.header("signature-certificate-url"),
                hook.body());

        assertEquals("https://" + CERT_HOST + "/platform/hooks/certificate/", v.certificateUrl().toString());
    }

    @Test
    void itServesTheSameDocumentAsTheMainPortWithTheSigningCertificateAndNothingElse() throws Exception {
        String overHttp = given().get("/platform/hooks/certificate/").then().statusCode(200).extract().asString();

        String doc = get("/platform/hooks/certificate/");
        assertTrue(doc.startsWith("HTTP/1.1 200"), doc);
        assertEquals(overHttp, doc.substring(doc.indexOf("\r\n\r\n") + 4));

        String other = get("/internal/v1/events");
        assertTrue(other.startsWith("HTTP/1.1 404"), other);
        assertTrue(other.contains("\"error_code\":\"NOT_FOUND\""), other);
    }

    /** One GET over TLS to 127.0.0.1, checking the certificate against the test CA and CERT_HOST. */
    private static String get(String path) throws IOException {
        SSLSocketFactory tls = HookPlatformResource.pki.clientContext().getSocketFactory();
        try (Socket plain = new Socket("127.0.0.1", PORT);
                SSLSocket s = (SSLSocket) tls.createSocket(plain, CERT_HOST, PORT, true)) {
            SSLParameters p = s.getSSLParameters();
            p.setEndpointIdentificationAlgorithm("HTTPS");
            p.setServerNames(List.of(new SNIHostName(CERT_HOST)));
            s.setSSLParameters(p);
            s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: " + CERT_HOST
                    + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
