package com.convplatform.crypto.management;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.convplatform.crypto.FailureCode;
import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.fetch.CertificateFetcher;
import com.convplatform.crypto.fetch.HostOverrides;
import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pki.CertificateBuilder;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.crypto.testing.HttpsTestServer;
import com.convplatform.crypto.testing.MutableClock;
import com.convplatform.crypto.testing.TestCertificates;
import com.convplatform.crypto.testing.TestPki;
import com.convplatform.crypto.time.TimestampWindow;

/**
 * Spec 5.1: every {@link FailureCode} the management verifier can produce, and for requests that fail two checks,
 * the one that comes first in the spec's order (headers, URL, download, certificate, signature, timestamp).
 */
class ManagementVerificationOrderTest {
    static final String FQDN = "client.example.com";
    static final String BASE = "https://" + FQDN + "/client.api/";

    static TestPki pki;
    static HttpsTestServer server;
    static KeyPair rsa;
    static KeyPair ec;
    static KeyPair rotated;
    static KeyPair weak;
    static Instant start;

    MutableClock clock;
    ManagementRequestVerifier verifier;

    @BeforeAll
    static void setUp() {
        start = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        pki = TestPki.create();
        rsa = KeyPairs.rsa();
        ec = KeyPairs.ecP256();
        rotated = KeyPairs.ecP256();
        weak = KeyPairs.rsa(1024);
        server = HttpsTestServer.start(pki, FQDN);
        serve("good.pem", pki.leaf(rsa, FQDN).chain());
        serve("ec.pem", pki.leaf(ec, FQDN).chain());
        serve("expired.pem", pki.leaf(rsa, start.minus(Duration.ofDays(30)), start.minusSeconds(1), FQDN).chain());
        serve("future.pem", pki.leaf(rsa, start.plus(Duration.ofDays(1)), start.plus(Duration.ofDays(30)), FQDN)
                .chain());
        serve("short.pem", pki.leaf(rsa, start.minusSeconds(60), start.plus(Duration.ofMinutes(10)), FQDN).chain());
        serve("other-name.pem", pki.leaf(rsa, "other.example.com").chain());
        serve("wildcard.pem", pki.leaf(rsa, "*.example.com").chain());
        serve("untrusted.pem", TestPki.create().leaf(rsa, FQDN).chain());
        serve("weak.pem", pki.leaf(weak, FQDN).chain());
        serve("leaf-only.pem", List.of(pki.leaf(rsa, FQDN).cert()));
        // an "intermediate" without the CA flag issuing the leaf
        KeyPair notCaKey = KeyPairs.ecP256();
        X509Certificate notCa = CertificateBuilder.forKey(notCaKey.getPublic()).commonName("Not a CA")
                .issuer(pki.root, pki.rootKey.getPrivate()).build();
        X509Certificate underNotCa = CertificateBuilder.forKey(rsa.getPublic()).commonName(FQDN).dnsNames(FQDN)
                .issuer(notCa, notCaKey.getPrivate()).build();
        serve("not-ca.pem", List.of(underNotCa, notCa));
        // issued for code signing only, and a wildcard under an intermediate that excludes the account's FQDN
        serve("code-signing.pem", List.of(TestCertificates.forKey(rsa.getPublic()).subject("CN=" + FQDN).dns(FQDN)
                .extendedKeyUsage(TestCertificates.CODE_SIGNING)
                .issuer(pki.intermediate, pki.intermediateKey.getPrivate()).build(), pki.intermediate));
        KeyPair excludingKey = KeyPairs.ecP256();
        X509Certificate excluding = TestCertificates.forKey(excludingKey.getPublic()).subject("CN=Excluding CA").ca(0)
                .excludeDns(FQDN).issuer(pki.root, pki.rootKey.getPrivate()).build();
        serve("wildcard-excluded.pem", List.of(TestCertificates.forKey(rsa.getPublic()).subject("CN=*.example.com")
                .dns("*.example.com").issuer(excluding, excludingKey.getPrivate()).build(), excluding));
        server.serve("/client.api/junk.pem", "text/plain", "this is not PEM");
        server.serve("/client.api/rotating.pem", "application/x-pem-file", Pem.toPem(pki.leaf(ec, FQDN).chain()));
    }

    static void serve(String name, List<X509Certificate> chain) {
        server.serve("/client.api/" + name, "application/x-pem-file", Pem.toPem(chain));
    }

    @AfterAll
    static void tearDown() {
        server.close();
    }

    /** One request that fails with one code, and the registered certificates it is verified against. */
    record Failing(ManagementRequestVerifier.Request request,
            ManagementRequestVerifier.RegisteredCertificates registered) {
        Failing(ManagementRequestVerifier.Request request) {
            this(request, uuid -> Optional.empty());
        }
    }

    @Test
    void everyFailureCodeIsProduced() {
        String ts = now();
        var good = request(rsa, ts, BASE + "good.pem");
        Map<FailureCode, Failing> cases = new EnumMap<>(FailureCode.class);
        cases.put(FailureCode.CERT_HEADERS, new Failing(with(good, good.signature(), null, null)));
        cases.put(FailureCode.CERT_URL_MALFORMED, new Failing(request(rsa, ts, BASE + "good.pem?x=1")));
        cases.put(FailureCode.CERT_URL_SCHEME,
                new Failing(request(rsa, ts, "http://" + FQDN + "/client.api/good.pem")));
        cases.put(FailureCode.CERT_URL_HOST, new Failing(request(rsa, ts, "https://other.example.com/client.api/x")));
        cases.put(FailureCode.CERT_URL_PATH, new Failing(request(rsa, ts, "https://" + FQDN + "/certs/good.pem")));
        cases.put(FailureCode.CERT_URL_PORT, new Failing(request(rsa, ts, "https://" + FQDN + ":8443/client.api/x")));
        cases.put(FailureCode.CERT_FETCH_FAILED, new Failing(request(rsa, ts, BASE + "missing.pem")));
        cases.put(FailureCode.CERT_MALFORMED, new Failing(request(rsa, ts, BASE + "junk.pem")));
        var byUuid = request(rsa, ts, null);
        cases.put(FailureCode.CERT_UNKNOWN, new Failing(with(byUuid, byUuid.signature(), null, "nope")));
        cases.put(FailureCode.CERT_NOT_YET_VALID, new Failing(request(rsa, ts, BASE + "future.pem")));
        cases.put(FailureCode.CERT_EXPIRED, new Failing(request(rsa, ts, BASE + "expired.pem")));
        cases.put(FailureCode.CERT_NAME_MISMATCH, new Failing(request(rsa, ts, BASE + "other-name.pem")));
        cases.put(FailureCode.CERT_UNTRUSTED, new Failing(request(rsa, ts, BASE + "untrusted.pem")));
        cases.put(FailureCode.CERT_CHAIN_INVALID, new Failing(request(rsa, ts, BASE + "not-ca.pem")));
        cases.put(FailureCode.CERT_KEY_UNSUPPORTED, new Failing(request(weak, ts, BASE + "weak.pem")));
        cases.put(FailureCode.SIGNATURE_MALFORMED, new Failing(with(good, "AAAA", BASE + "good.pem", null)));
        cases.put(FailureCode.SIGNATURE_MISMATCH, new Failing(
                with(good, request(KeyPairs.rsa(), ts, null).signature(), BASE + "good.pem", null)));
        cases.put(FailureCode.TIMESTAMP_MALFORMED, new Failing(request(rsa, "2026-11-22T10:00:00", BASE + "good.pem")));
        cases.put(FailureCode.TIMESTAMP_OUT_OF_WINDOW,
                new Failing(request(rsa, TimestampWindow.format(start.plusSeconds(151)), BASE + "good.pem")));
        // CERT_FETCH_BUSY needs downloads held open at once: CertificateFetcherTest produces it
        assertEquals(EnumSet.complementOf(EnumSet.of(FailureCode.CERT_FETCH_BUSY)), cases.keySet(),
                "codes without a failing request here");
        cases.forEach((expected, failing) -> assertEquals(expected, code(failing.request(), failing.registered()),
                expected.name()));
    }

    @BeforeEach
    void verifier() {
        clock = new MutableClock(start);
        CertificateFetcher fetcher = new CertificateFetcher(pki.clientContext(), Duration.ofSeconds(2),
                Duration.ofSeconds(5), 65536, HostOverrides.parse(List.of(server.override(FQDN))));
        verifier = ManagementRequestVerifier.builder().trustAnchors(pki.anchors()).fetcher(fetcher).clock(clock)
                .build();
    }

    static byte[] body(String timestamp) {
        return ("{\"client_id\":\"c1\",\"fqdn\":\"" + FQDN + "\",\"timestamp\":\"" + timestamp + "\"}")
                .getBytes(StandardCharsets.UTF_8);
    }

    /** A request whose body carries {@code timestamp}, signed by {@code key}, with the chain at {@code url}. */
    static ManagementRequestVerifier.Request request(KeyPair key, String timestamp, String url) {
        byte[] b = body(timestamp);
        return new ManagementRequestVerifier.Request(b, FQDN, timestamp,
                new ManagementRequestSigner(key.getPrivate()).sign(b), url, null);
    }

    String now() {
        return TimestampWindow.now(clock);
    }

    FailureCode code(ManagementRequestVerifier.Request request) {
        return code(request, uuid -> Optional.empty());
    }

    FailureCode code(ManagementRequestVerifier.Request request,
            ManagementRequestVerifier.RegisteredCertificates registered) {
        VerificationException e = assertThrows(VerificationException.class,
                () -> verifier.verify(request, registered));
        assertTrue(e.getMessage() != null && e.getMessage().length() > 20, e::getMessage);
        return e.code();
    }

    static ManagementRequestVerifier.Request with(ManagementRequestVerifier.Request r, String signature, String url,
            String uuid) {
        return new ManagementRequestVerifier.Request(r.body(), r.fqdn(), r.timestamp(), signature, url, uuid);
    }

    @Test
    void rsaAndEcRequestsVerify() throws Exception {
        var ok = verifier.verify(request(rsa, now(), BASE + "good.pem"), uuid -> Optional.empty());
        assertEquals(BASE + "good.pem", ok.certificateSource());
        assertEquals(start, ok.timestamp());
        verifier.verify(request(ec, now(), BASE + "ec.pem"), uuid -> Optional.empty());
        verifier.verify(request(rsa, now(), BASE + "wildcard.pem"), uuid -> Optional.empty());
    }

    @Test
    void step0_exactlyOneCertificateHeader() {
        var r = request(rsa, now(), BASE + "good.pem");
        assertEquals(FailureCode.CERT_HEADERS, code(with(r, r.signature(), null, null)));
        assertEquals(FailureCode.CERT_HEADERS, code(with(r, r.signature(), "", "")));
        assertEquals(FailureCode.CERT_HEADERS, code(with(r, r.signature(), BASE + "good.pem", "u-1")));
        // wins over every later failure
        assertEquals(FailureCode.CERT_HEADERS, code(with(request(rsa, "bad", "http://x"), "!!", null, null)));
    }

    @Test
    void step1_certificateLocation() {
        String ts = now();
        assertEquals(FailureCode.CERT_URL_MALFORMED, code(request(rsa, ts, BASE + "good.pem?x=1")));
        assertEquals(FailureCode.CERT_URL_SCHEME, code(request(rsa, ts, "http://" + FQDN + "/client.api/good.pem")));
        assertEquals(FailureCode.CERT_URL_HOST, code(request(rsa, ts, "https://other.example.com/client.api/x")));
        assertEquals(FailureCode.CERT_URL_PATH, code(request(rsa, ts, "https://" + FQDN + "/certs/good.pem")));
        assertEquals(FailureCode.CERT_URL_PORT, code(request(rsa, ts, "https://" + FQDN + ":8443/client.api/x")));
        assertEquals(FailureCode.CERT_FETCH_FAILED, code(request(rsa, ts, BASE + "missing.pem")));
        assertEquals(FailureCode.CERT_MALFORMED, code(request(rsa, ts, BASE + "junk.pem")));
        assertEquals(FailureCode.CERT_UNKNOWN,
                code(with(request(rsa, ts, null), request(rsa, ts, null).signature(), null, "nope")));
        // the URL is judged before anything is downloaded, and before the signature or timestamp
        int hits = server.hits("/client.api/good.pem");
        assertEquals(FailureCode.CERT_URL_PATH,
                code(with(request(rsa, "old", BASE + "good.pem"), "!!", BASE + "../good.pem", null)));
        assertEquals(hits, server.hits("/client.api/good.pem"));
        assertEquals(FailureCode.CERT_UNKNOWN, code(with(request(rsa, "old", null), "!!", null, "nope")));
    }

    @Test
    void step2_certificateValidity() {
        String ts = now();
        assertEquals(FailureCode.CERT_EXPIRED, code(request(rsa, ts, BASE + "expired.pem")));
        assertEquals(FailureCode.CERT_NOT_YET_VALID, code(request(rsa, ts, BASE + "future.pem")));
        assertEquals(FailureCode.CERT_NAME_MISMATCH, code(request(rsa, ts, BASE + "other-name.pem")));
        assertEquals(FailureCode.CERT_UNTRUSTED, code(request(rsa, ts, BASE + "untrusted.pem")));
        assertEquals(FailureCode.CERT_UNTRUSTED, code(request(rsa, ts, BASE + "leaf-only.pem")));
        assertEquals(FailureCode.CERT_CHAIN_INVALID, code(request(rsa, ts, BASE + "not-ca.pem")));
        assertEquals(FailureCode.CERT_KEY_UNSUPPORTED, code(request(weak, ts, BASE + "weak.pem")));
        assertEquals(FailureCode.CERT_CHAIN_INVALID, code(request(rsa, ts, BASE + "code-signing.pem")));
        assertEquals(FailureCode.CERT_CHAIN_INVALID, code(request(rsa, ts, BASE + "wildcard-excluded.pem")));
        // a certificate failure wins over a bad signature and a stale timestamp
        String stale = TimestampWindow.format(start.minusSeconds(3600));
        assertEquals(FailureCode.CERT_EXPIRED, code(with(request(rsa, stale, BASE + "expired.pem"), "!!",
                BASE + "expired.pem", null)));
        assertEquals(FailureCode.CERT_NAME_MISMATCH,
                code(request(ec, stale, BASE + "other-name.pem")));
    }

    @Test
    void step2_registeredSelfSignedCertificates() throws Exception {
        KeyPair kp = KeyPairs.ecP256();
        X509Certificate good = CertificateBuilder.selfSigned(kp, FQDN, start.plus(Duration.ofDays(30)), FQDN);
        X509Certificate expired = CertificateBuilder.forKey(kp.getPublic()).commonName(FQDN).dnsNames(FQDN)
                .validity(start.minus(Duration.ofDays(30)), start.minusSeconds(1)).selfSigned(kp.getPrivate());
        X509Certificate otherName = CertificateBuilder.selfSigned(kp, FQDN, start.plus(Duration.ofDays(30)),
                "other.example.com");
        String ts = now();
        var r = request(kp, ts, null);
        var ok = verifier.verify(with(r, r.signature(), null, "good"),
                uuid -> uuid.equals("good") ? Optional.of(good) : Optional.empty());
        assertEquals("uuid:" + FQDN + "/good", ok.certificateSource());
        assertEquals(FailureCode.CERT_EXPIRED, code(with(r, r.signature(), null, "expired"),
                uuid -> Optional.of(expired)));
        assertEquals(FailureCode.CERT_NAME_MISMATCH, code(with(r, r.signature(), null, "other"),
                uuid -> Optional.of(otherName)));
        // a certificate registered for the id but another key signed: a mismatch, and never a download
        var byOther = request(ec, ts, null);
        assertEquals(FailureCode.SIGNATURE_MISMATCH, code(with(byOther, byOther.signature(), null, "good"),
                uuid -> Optional.of(good)));
    }

    @Test
    void step3_signature() {
        String ts = now();
        var r = request(rsa, ts, BASE + "good.pem");
        assertEquals(FailureCode.SIGNATURE_MALFORMED, code(with(r, null, BASE + "good.pem", null)));
        assertEquals(FailureCode.SIGNATURE_MALFORMED, code(with(r, "", BASE + "good.pem", null)));
        assertEquals(FailureCode.SIGNATURE_MALFORMED, code(with(r, "not base64", BASE + "good.pem", null)));
        assertEquals(FailureCode.SIGNATURE_MALFORMED, code(with(r, "AAAA", BASE + "good.pem", null)));
        assertEquals(FailureCode.SIGNATURE_MISMATCH, code(with(r, request(rsa, TimestampWindow.format(start
                .plusSeconds(1)), null).signature(), BASE + "good.pem", null)));
        assertEquals(FailureCode.SIGNATURE_MISMATCH, code(with(r, request(KeyPairs.rsa(), ts, null).signature(),
                BASE + "good.pem", null)));
        // the signature is judged before the timestamp
        String stale = TimestampWindow.format(start.minusSeconds(3600));
        var old = request(rsa, stale, BASE + "good.pem");
        assertEquals(FailureCode.SIGNATURE_MISMATCH, code(with(old, r.signature(), BASE + "good.pem", null)));
        assertEquals(FailureCode.SIGNATURE_MALFORMED, code(with(old, "%%%%", BASE + "good.pem", null)));
        var malformedTs = request(rsa, "yesterday", BASE + "good.pem");
        assertEquals(FailureCode.SIGNATURE_MALFORMED, code(with(malformedTs, "%%%%", BASE + "good.pem", null)));
    }

    @Test
    void step4_timestamp() throws Exception {
        assertEquals(FailureCode.TIMESTAMP_MALFORMED, code(request(rsa, "2026-11-22T10:00:00", BASE + "good.pem")));
        assertEquals(FailureCode.TIMESTAMP_MALFORMED, code(request(rsa, "", BASE + "good.pem")));
        var noTs = request(rsa, now(), BASE + "good.pem");
        assertEquals(FailureCode.TIMESTAMP_MALFORMED,
                code(new ManagementRequestVerifier.Request(noTs.body(), FQDN, null, noTs.signature(),
                        BASE + "good.pem", null)));
        for (long s : new long[]{-150, 150}) {
            verifier.verify(request(rsa, TimestampWindow.format(start.plusSeconds(s)), BASE + "good.pem"),
                    uuid -> Optional.empty());
        }
        for (long s : new long[]{-151, 151}) {
            assertEquals(FailureCode.TIMESTAMP_OUT_OF_WINDOW,
                    code(request(rsa, TimestampWindow.format(start.plusSeconds(s)), BASE + "good.pem")));
        }
    }

    @Test
    void validityIsCheckedOnEveryUseOfTheCachedChain() throws Exception {
        verifier.verify(request(rsa, now(), BASE + "short.pem"), uuid -> Optional.empty());
        int hits = server.hits("/client.api/short.pem");
        clock.advance(Duration.ofMinutes(11));
        assertEquals(FailureCode.CERT_EXPIRED, code(request(rsa, now(), BASE + "short.pem")));
        // the renewed chain is looked for once (it is the same expired one here)
        assertEquals(hits + 1, server.hits("/client.api/short.pem"));
    }

    @Test
    void aRotatedKeyIsPickedUpWithOneRefetch() throws Exception {
        verifier.verify(request(ec, now(), BASE + "rotating.pem"), uuid -> Optional.empty());
        int hits = server.hits("/client.api/rotating.pem");
        server.serve("/client.api/rotating.pem", "application/x-pem-file", Pem.toPem(pki.leaf(rotated, FQDN)
                .chain()));
        clock.advance(Duration.ofMinutes(5));
        verifier.verify(request(rotated, now(), BASE + "rotating.pem"), uuid -> Optional.empty());
        assertEquals(hits + 1, server.hits("/client.api/rotating.pem"));
        // the old key no longer verifies, and bad requests do not each trigger a download
        for (int i = 0; i < 3; i++) {
            assertEquals(FailureCode.SIGNATURE_MISMATCH, code(request(ec, now(), BASE + "rotating.pem")));
        }
        assertEquals(hits + 1, server.hits("/client.api/rotating.pem"));
    }
}
