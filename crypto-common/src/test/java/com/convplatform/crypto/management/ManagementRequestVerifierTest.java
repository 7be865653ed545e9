package com.convplatform.crypto.management;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.convplatform.crypto.FailureCode;
import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.fetch.CertificateFetcher;
import com.convplatform.crypto.fetch.HostOverrides;
import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pki.CertificateBuilder;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.crypto.sig.SignatureAlgorithm;
import com.convplatform.crypto.testing.HttpsTestServer;
import com.convplatform.crypto.testing.MutableClock;
import com.convplatform.crypto.testing.TestPki;
import com.convplatform.crypto.time.TimestampWindow;

class ManagementRequestVerifierTest {
    static final String FQDN = "client.example.com";
    static TestPki pki;
    static HttpsTestServer server;
    static TestPki.Leaf rsaLeaf;
    static TestPki.Leaf ecLeaf;

    @BeforeAll
    static void start() {
        pki = TestPki.create();
        server = HttpsTestServer.start(pki, FQDN);
        rsaLeaf = pki.leaf(KeyPairs.rsa(), FQDN);
        ecLeaf = pki.leaf(KeyPairs.ecP256(), FQDN);
        server.serve("/client.api/rsa.pem", "application/x-pem-file", Pem.toPem(rsaLeaf.chain()));
        server.serve("/client.api/ec.pem", "application/x-pem-file", Pem.toPem(ecLeaf.chain()));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private ManagementRequestVerifier verifier(Clock clock) {
        CertificateFetcher fetcher = new CertificateFetcher(pki.clientContext(), Duration.ofSeconds(2),
                Duration.ofSeconds(5), 65536, HostOverrides.parse(List.of(server.override(FQDN))));
        return ManagementRequestVerifier.builder().trustAnchors(pki.anchors()).fetcher(fetcher).clock(clock).build();
    }

    private static byte[] body(String ts) {
        return ("{\"client_id\":\"c1\",\"fqdn\":\"" + FQDN + "\",\"timestamp\":\"" + ts + "\"}")
                .getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void caSignedRsaAndEcRequestsVerifyAndTheChainIsDownloadedOnce() throws Exception {
        Clock clock = Clock.systemUTC();
        ManagementRequestVerifier v = verifier(clock);
        String ts = TimestampWindow.now(clock);
        byte[] b = body(ts);
        for (int i = 0; i < 3; i++) {
            var ok = v.verify(new ManagementRequestVerifier.Request(b, FQDN, ts,
                    new ManagementRequestSigner(rsaLeaf.key().getPrivate()).sign(b), "https://CLIENT.example.com:443"
                            + "/client.api/../client.api/rsa.pem",
                    null), uuid -> Optional.empty());
            assertEquals(SignatureAlgorithm.SHA1_WITH_RSA, ok.algorithm());
            assertEquals("https://client.example.com/client.api/rsa.pem", ok.certificateSource());
        }
        var ec = v.verify(new ManagementRequestVerifier.Request(b, FQDN, ts,
                new ManagementRequestSigner(ecLeaf.key().getPrivate()).sign(b),
                "https://client.example.com/client.api/ec.pem", null), uuid -> Optional.empty());
        assertEquals(SignatureAlgorithm.SHA1_WITH_ECDSA, ec.algorithm());
        assertEquals(1, server.hits("/client.api/rsa.pem"));
    }

    @Test
    void aFailedChainUrlIsAnsweredFromMemoryUntilItsTimeIsUpAndAPurgeForgetsIt() throws Exception {
        MutableClock clock = new MutableClock(Instant.now());
        List<String> gated = new ArrayList<>();
        CertificateFetcher fetcher = new CertificateFetcher(pki.clientContext(), Duration.ofSeconds(2),
                Duration.ofSeconds(5), 65536, HostOverrides.parse(List.of(server.override(FQDN))));
        ManagementRequestVerifier v = ManagementRequestVerifier.builder().trustAnchors(pki.anchors()).fetcher(fetcher)
                .clock(clock).failureMemory(Duration.ofSeconds(15))
                .downloadGate((fqdn, url) -> gated.add(fqdn + " " + url)).build();
        String ts = TimestampWindow.now(clock);
        byte[] b = body(ts);
        String sig = new ManagementRequestSigner(ecLeaf.key().getPrivate()).sign(b);
        String missing = "https://client.example.com/client.api/not-there.pem";
        var request = new ManagementRequestVerifier.Request(b, FQDN, ts, sig, missing, null);
        var first = assertThrows(VerificationException.class, () -> v.verify(request, uuid -> Optional.empty()));
        assertEquals(FailureCode.CERT_FETCH_FAILED, first.code());
        var remembered = assertThrows(VerificationException.class, () -> v.verify(request, uuid -> Optional.empty()));
        assertEquals(FailureCode.CERT_FETCH_FAILED, remembered.code());
        assertTrue(remembered.getMessage().contains("kept for up to 15 s"), remembered.getMessage());
        assertEquals(1, server.hits("/client.api/not-there.pem"));
        assertEquals(List.of(FQDN + " " + missing), gated, "the gate is asked once per download, with the fqdn");

        clock.advance(Duration.ofSeconds(16));
        assertThrows(VerificationException.class, () -> v.verify(request, uuid -> Optional.empty()));
        assertEquals(2, server.hits("/client.api/not-there.pem"), "after its time, the URL is downloaded again");
        v.purge("CLIENT.example.com");
        assertThrows(VerificationException.class, () -> v.verify(request, uuid -> Optional.empty()));
        assertEquals(3, server.hits("/client.api/not-there.pem"), "a purge forgets the failure");
        v.purge("other.example.com");
        assertThrows(VerificationException.class, () -> v.verify(request, uuid -> Optional.empty()));
        assertEquals(3, server.hits("/client.api/not-there.pem"), "another account's purge does not");
    }

    @Test
    void aDownloadTheGateRefusesIsNotMadeAndNotRemembered() throws Exception {
        Clock clock = Clock.systemUTC();
        CertificateFetcher fetcher = new CertificateFetcher(pki.clientContext(), Duration.ofSeconds(2),
                Duration.ofSeconds(5), 65536, HostOverrides.parse(List.of(server.override(FQDN))));
        AtomicBoolean open = new AtomicBoolean(false);
        ManagementRequestVerifier v = ManagementRequestVerifier.builder().trustAnchors(pki.anchors()).fetcher(fetcher)
                .clock(clock).failureMemory(Duration.ofSeconds(15)).downloadGate((fqdn, url) -> {
                    if (!open.get()) {
                        throw new VerificationException(FailureCode.CERT_FETCH_BUSY, "over budget");
                    }
                }).build();
        String ts = TimestampWindow.now(clock);
        byte[] b = body(ts);
        var request = new ManagementRequestVerifier.Request(b, FQDN, ts,
                new ManagementRequestSigner(ecLeaf.key().getPrivate()).sign(b),
                "https://client.example.com/client.api/gated/../ec.pem", null);
        int before = server.hits("/client.api/ec.pem");
        var busy = assertThrows(VerificationException.class, () -> v.verify(request, uuid -> Optional.empty()));
        assertEquals(FailureCode.CERT_FETCH_BUSY, busy.code());
        assertEquals(before, server.hits("/client.api/ec.pem"));
        open.set(true);
        v.verify(request, uuid -> Optional.empty()); // not answered from memory: a busy refusal says nothing of the URL
        assertEquals(before + 1, server.hits("/client.api/ec.pem"));
    }

    @Test
    void selfSignedRegisteredCertificateVerifiesAndUnknownIdIsRefused() throws Exception {
        KeyPair kp = KeyPairs.ecP256();
        var cert = CertificateBuilder.selfSigned(kp, FQDN, Instant.now().plus(Duration.ofDays(30)), FQDN);
        Clock clock = Clock.systemUTC();
        ManagementRequestVerifier v = verifier(clock);
        String ts = TimestampWindow.now(clock);
        byte[] b = body(ts);
        String sig = new ManagementRequestSigner(kp.getPrivate()).sign(b);
        v.verify(new ManagementRequestVerifier.Request(b, FQDN, ts, sig, null, "u-1"),
                uuid -> uuid.equals("u-1") ? Optional.of(cert) : Optional.empty());
        var e = assertThrows(VerificationException.class,
                () -> v.verify(new ManagementRequestVerifier.Request(b, FQDN, ts, sig, null, "u-2"),
                        uuid -> uuid.equals("u-1") ? Optional.of(cert) : Optional.empty()));
        assertEquals(FailureCode.CERT_UNKNOWN, e.code());
    }

    @Test
    void tamperedBodyStaleTimestampAndBadHeadersAreRefusedWithTheirCodes() throws Exception {
        Instant now = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS); // the edge is exact
        ManagementRequestVerifier v = verifier(Clock.fixed(now, ZoneOffset.UTC));
        String ts = TimestampWindow.format(now);
        byte[] b = body(ts);
        String sig = new ManagementRequestSigner(rsaLeaf.key().getPrivate()).sign(b);
        String url = "https://client.example.com/client.api/rsa.pem";
        byte[] tampered = body(TimestampWindow.format(now.plusSeconds(1)));
        assertEquals(FailureCode.SIGNATURE_MISMATCH, assertThrows(VerificationException.class,
                () -> v.verify(new ManagementRequestVerifier.Request(tampered, FQDN, ts, sig, url, null),
                        u -> Optional.empty()))
                .code());
        String old = TimestampWindow.format(now.minusSeconds(151));
        byte[] oldBody = body(old);
        String oldSig = new ManagementRequestSigner(rsaLeaf.key().getPrivate()).sign(oldBody);
        assertEquals(FailureCode.TIMESTAMP_OUT_OF_WINDOW, assertThrows(VerificationException.class,
                () -> v.verify(new ManagementRequestVerifier.Request(oldBody, FQDN, old, oldSig, url, null),
                        u -> Optional.empty()))
                .code());
        String edge = TimestampWindow.format(now.minusSeconds(150));
        byte[] edgeBody = body(edge);
        v.verify(new ManagementRequestVerifier.Request(edgeBody, FQDN, edge,
                new ManagementRequestSigner(rsaLeaf.key().getPrivate()).sign(edgeBody), url, null),
                u -> Optional.empty());
        assertEquals(FailureCode.CERT_HEADERS, assertThrows(VerificationException.class,
                () -> v.verify(new ManagementRequestVerifier.Request(b, FQDN, ts, sig, url, "x"),
                        u -> Optional.empty()))
                .code());
        assertEquals(FailureCode.CERT_URL_HOST, assertThrows(VerificationException.class,
                () -> v.verify(new ManagementRequestVerifier.Request(b, FQDN, ts, sig,
                        "https://other.example.com/client.api/rsa.pem", null), u -> Optional.empty()))
                .code());
        assertEquals(FailureCode.CERT_FETCH_FAILED, assertThrows(VerificationException.class,
                () -> v.verify(new ManagementRequestVerifier.Request(b, FQDN, ts, sig,
                        "https://client.example.com/client.api/missing.pem", null), u -> Optional.empty()))
                .code());
    }
}
