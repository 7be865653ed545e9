package com.convplatform.crypto.receiver.jaxrs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;

import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.convplatform.crypto.fetch.CertificateFetcher;
import com.convplatform.crypto.fetch.HostOverrides;
import com.convplatform.crypto.hook.HookSigner;
import com.convplatform.crypto.hook.HookVerifier;
import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.crypto.receiver.HookReceiver;
import com.convplatform.crypto.sig.CryptoProviders;
import com.convplatform.crypto.testing.HttpsTestServer;
import com.convplatform.crypto.testing.MutableClock;
import com.convplatform.crypto.testing.TestPki;
import com.convplatform.crypto.time.TimestampWindow;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The filter without a container: a request-context test double carrying hooks signed by a real platform key, whose
 * certificate the verifier downloads over TLS from a local server; Response objects come from a real JAX-RS runtime.
 */
class HookVerificationFilterTest {
    static final String HOST = "hooks.platform.example";
    static final String PATH = "/platform/hooks/certificate/";
    static final String URL = "https://" + HOST + PATH;
    static final ObjectMapper JSON = new ObjectMapper();

    static TestPki pki;
    static KeyPair platformKey;

    HttpsTestServer server;
    MutableClock clock;
    HookVerifier verifier;
    HookVerificationFilter filter;

    @BeforeAll
    static void keys() {
        pki = TestPki.create();
        platformKey = KeyPairs.rsa();
    }

    @BeforeEach
    void start() throws Exception {
        server = HttpsTestServer.start(pki, HOST);
        server.serve(PATH, "application/json",
                JSON.writeValueAsString(Map.of("certificate", Pem.toPem(pki.leaf(platformKey, HOST).chain()))));
        clock = new MutableClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
        verifier = HookVerifier.builder().platformDomains("platform.example").trustAnchors(pki.anchors())
                .fetcher(new CertificateFetcher(pki.clientContext(), Duration.ofSeconds(2), Duration.ofSeconds(5),
                        65536, HostOverrides.parse(server.overrides(HOST))))
                .clock(clock).build();
        filter = new HookVerificationFilter(verifier);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    byte[] body(Instant signatureTimestamp) {
        return ("{\"user_id\":\"ü42\",\"conversation_number\":1,\"message_body\":\"{\\\"text\\\":\\\"hi\\\","
                + "\\\"type\\\":\\\"TEXT\\\",\\\"data\\\":{\\\"quick_replies\\\":[]}}\",\"message_id\":123,"
                + "\"sender\":\"user\",\"timestamp\":\"2026-11-22T10:00:00.000Z\",\"metadata\":{},"
                + "\"signature_timestamp\":\"" + TimestampWindow.format(signatureTimestamp) + "\"}")
                .getBytes(StandardCharsets.UTF_8);
    }

    static String sign(byte[] body) {
        return new HookSigner(platformKey.getPrivate(), URL, CryptoProviders.recommended()).sign(body).signature();
    }

    RequestContextDouble request(String signature, String url, byte[] body) {
        Map<String, String> headers = new HashMap<>();
        headers.put("Content-Type", "application/json");
        headers.put("Signature", signature); // any case: HTTP header names are case-insensitive
        headers.put("Signature-Certificate-Url", url);
        return new RequestContextDouble(headers, new ByteArrayInputStream(body));
    }

    @Test
    void aVerifiedHookReachesTheResourceWithItsExactBytes() throws Exception {
        byte[] body = body(clock.instant());
        RequestContextDouble request = request(sign(body), URL, body);
        filter.filter(request);
        assertNull(request.abortedWith(), "not aborted");
        assertArrayEquals(body, request.getEntityStream().readAllBytes(), "the resource reads the same bytes");
        HookVerifier.Verified verified = assertInstanceOf(HookVerifier.Verified.class,
                request.getProperty(HookVerificationFilter.VERIFIED));
        assertEquals(URL, verified.certificateUrl());
        assertEquals(clock.instant(), verified.signatureTimestamp());
    }

    @Test
    void aTamperedHookIsRefusedWith400AndItsFailureCode() throws Exception {
        byte[] body = body(clock.instant());
        String signature = sign(body);
        body[body.length - 5] ^= 1;
        assertRefused(request(signature, URL, body), 400, "SIGNATURE_MISMATCH");
    }

    @Test
    void eachCheckOfTheVerifierAnswers400WithItsCode() throws Exception {
        byte[] body = body(clock.instant());
        assertRefused(request(null, URL, body), 400, "SIGNATURE_MALFORMED");
        assertRefused(request(sign(body), null, body), 400, "CERT_URL_MALFORMED");
        assertRefused(request(sign(body), "http://" + HOST + PATH, body), 400, "CERT_URL_SCHEME");
        assertRefused(request(sign(body), "https://hooks.evil.example" + PATH, body), 400, "CERT_URL_HOST");
        assertRefused(request(sign(body), "https://" + HOST + "/other/", body), 400, "CERT_URL_PATH");
        assertRefused(request(sign(body), "https://" + HOST + ":8443" + PATH, body), 400, "CERT_URL_PORT");
        byte[] stale = body(clock.instant().minusSeconds(121));
        assertRefused(request(sign(stale), URL, stale), 400, "TIMESTAMP_OUT_OF_WINDOW");
        byte[] wrongKey = body(clock.instant());
        String other = new HookSigner(KeyPairs.rsa().getPrivate(), URL, CryptoProviders.recommended())
                .sign(wrongKey).signature();
        assertRefused(request(other, URL, wrongKey), 400, "SIGNATURE_MISMATCH");
        server.respond(PATH, new HttpsTestServer.Response(404, "text/plain", new byte[0], Map.of()));
        HookVerificationFilter fresh = new HookVerificationFilter(HookVerifier.builder()
                .platformDomains("platform.example").trustAnchors(pki.anchors())
                .fetcher(new CertificateFetcher(pki.clientContext(), Duration.ofSeconds(2), Duration.ofSeconds(5),
                        65536, HostOverrides.parse(server.overrides(HOST))))
                .clock(clock).build());
        RequestContextDouble unreachable = request(sign(body), URL, body);
        fresh.filter(unreachable);
        assertEquals("CERT_FETCH_FAILED", errorCode(unreachable.abortedWith()));
    }

    @Test
    void theHookWindowIsExactToTheMillisecond() throws Exception {
        // Issue 39: 120 s old is accepted, 120.001 s is refused (the clock was rounded down to whole seconds).
        Instant start = clock.instant();
        byte[] body = body(start.minusSeconds(120));
        RequestContextDouble onTheEdge = request(sign(body), URL, body);
        filter.filter(onTheEdge);
        assertNull(onTheEdge.abortedWith(), "exactly 120 s old is accepted");
        clock.set(start.plusMillis(1));
        assertRefused(request(sign(body), URL, body), 400, "TIMESTAMP_OUT_OF_WINDOW");
        clock.set(start.plusMillis(999));
        assertRefused(request(sign(body), URL, body), 400, "TIMESTAMP_OUT_OF_WINDOW");
    }

    @Test
    void aBodyOverTheLimitIs413() throws Exception {
        byte[] body = body(clock.instant());
        HookVerificationFilter small = new HookVerificationFilter(new HookReceiver(verifier, 64));
        RequestContextDouble request = request(sign(body), URL, body);
        small.filter(request);
        assertEquals(HookReceiver.BODY_TOO_LARGE, errorCode(request.abortedWith()));
        assertEquals(413, request.abortedWith().getStatus());
        assertEquals(0, server.hits(PATH), "nothing verified, nothing downloaded");
    }

    void assertRefused(RequestContextDouble request, int status, String code) throws Exception {
        filter.filter(request);
        Response response = request.abortedWith();
        assertNotNull(response, "aborted");
        assertEquals(status, response.getStatus());
        assertEquals(MediaType.APPLICATION_JSON_TYPE, response.getMediaType());
        assertEquals(code, errorCode(response));
        assertNull(request.getProperty(HookVerificationFilter.VERIFIED));
    }

    static String errorCode(Response response) throws Exception {
        JsonNode json = JSON.readTree((byte[]) response.getEntity());
        assertEquals(2, json.size(), json.toString());
        assertNotNull(json.get("error_message").asText());
        return json.get("error_code").asText();
    }
}
