package com.convplatform.crypto.kits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.chain.TrustAnchors;
import com.convplatform.crypto.fetch.CertificateFetcher;
import com.convplatform.crypto.json.JsonFields;
import com.convplatform.crypto.management.ManagementHeaders;
import com.convplatform.crypto.management.ManagementRequestVerifier;
import com.convplatform.crypto.receiver.HookReceiver;
import com.convplatform.testsupport.StubServer;
import com.sun.net.httpserver.HttpExchange;

/**
 * The README's Java token request, sent to a local endpoint that verifies it the way management-service does
 * ({@link ManagementRequestVerifier}, a registered self-signed certificate by UUID): with the vectors' RSA and EC client
 * keys it is accepted; with a key that is not the registered certificate's it is refused.
 */
class JavaKitExamplesTest {
    static final String FQDN = "client.example.test";
    static final Map<String, String> REGISTERED = Map.of("6f1c1a52-0000-4000-8000-00000000000a",
            "pki/client-rsa.cert.pem", "6f1c1a52-0000-4000-8000-00000000000e", "pki/client-ec.cert.pem");

    StubServer server;
    /** No chain URLs in these requests: the registered certificates are all it trusts. */
    final ManagementRequestVerifier verifier = ManagementRequestVerifier.builder()
            .trustAnchors(TrustAnchors.of(List.of())).fetcher(CertificateFetcher.withDefaults()).build();

    @BeforeEach
    void start() throws IOException {
        server = StubServer.http().route("/platform/management/token/issue/", this::issue);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    void issue(HttpExchange exchange) throws IOException {
        byte[] body = exchange.getRequestBody().readAllBytes();
        int status;
        byte[] answer;
        try {
            ManagementRequestVerifier.Verified ok = verifier.verify(new ManagementRequestVerifier.Request(body,
                    JsonFields.topLevelString(body, "fqdn").orElse(""),
                    JsonFields.topLevelString(body, "timestamp").orElse(null),
                    exchange.getRequestHeaders().getFirst(ManagementHeaders.SIGNATURE),
                    exchange.getRequestHeaders().getFirst(ManagementHeaders.CERT_CHAIN_URL),
                    exchange.getRequestHeaders().getFirst(ManagementHeaders.CERT_UUID),
                    exchange.getRequestHeaders().getFirst(ManagementHeaders.SIGNATURE_256)), this::registered);
            status = 200;
            answer = ("{\"token\":\"issued\",\"algorithms\":\"" + ok.algorithms().stream()
                    .map(a -> a.jcaName()).collect(java.util.stream.Collectors.joining(" ")) + "\"}")
                    .getBytes(StandardCharsets.UTF_8);
        } catch (VerificationException e) {
            status = 400;
            answer = new HookReceiver.Rejected(400, e.code().name(), e.getMessage()).jsonBody();
        }
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, answer.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(answer);
        }
    }

    Optional<X509Certificate> registered(String uuid) {
        return Optional.ofNullable(REGISTERED.get(uuid)).map(file -> KitVectors.certificates(file).get(0));
    }

    String platform() {
        return server.url();
    }

    @Test
    void theReadmeTokenRequestIsAcceptedWithAnRsaKey() throws Exception {
        HttpResponse<String> response = TokenRequestExample.issueToken(platform(), "c-1a2b3c", FQDN,
                "6f1c1a52-0000-4000-8000-00000000000a", KitVectors.dir().resolve("pki/client-rsa.key.pem"));
        assertEquals(200, response.statusCode(), response.body());
        assertTrue(response.body().contains("\"SHA1withRSA SHA256withRSA\""), "both headers sent: " + response.body());
    }

    @Test
    void theReadmeTokenRequestIsAcceptedWithAnEcKey() throws Exception {
        HttpResponse<String> response = TokenRequestExample.issueToken(platform(), "c-1a2b3c", FQDN,
                "6f1c1a52-0000-4000-8000-00000000000e", KitVectors.dir().resolve("pki/client-ec.key.pem"));
        assertEquals(200, response.statusCode(), response.body());
        assertTrue(response.body().contains("\"SHA1withECDSA SHA256withECDSA\""), "both headers sent: "
                + response.body());
    }

    @Test
    void aKeyThatIsNotTheRegisteredCertificatesIsRefused() throws Exception {
        HttpResponse<String> response = TokenRequestExample.issueToken(platform(), "c-1a2b3c", FQDN,
                "6f1c1a52-0000-4000-8000-00000000000a", KitVectors.dir().resolve("pki/client-other-rsa.key.pem"));
        assertEquals(400, response.statusCode());
        assertTrue(response.body().contains("\"error_code\":\"SIGNATURE_MISMATCH\""), response.body());
    }

    @Test
    void anotherFqdnThanTheCertificatesIsRefused() throws Exception {
        HttpResponse<String> response = TokenRequestExample.issueToken(platform(), "c-1a2b3c", "other.example.test",
                "6f1c1a52-0000-4000-8000-00000000000a", KitVectors.dir().resolve("pki/client-rsa.key.pem"));
        assertEquals(400, response.statusCode());
        assertTrue(response.body().contains("\"error_code\":\"CERT_NAME_MISMATCH\""), response.body());
    }
}
