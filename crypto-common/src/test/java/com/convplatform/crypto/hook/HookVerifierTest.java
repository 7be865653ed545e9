package com.convplatform.crypto.hook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.convplatform.crypto.FailureCode;
import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.fetch.CertificateFetcher;
import com.convplatform.crypto.fetch.HostOverrides;
import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.crypto.sig.CryptoProviders;
import com.convplatform.crypto.testing.HttpsTestServer;
import com.convplatform.crypto.testing.MutableClock;
import com.convplatform.crypto.testing.TestCertificates;
import com.convplatform.crypto.testing.TestPki;
import com.convplatform.crypto.time.TimestampWindow;
import com.fasterxml.jackson.databind.ObjectMapper;

/** Spec 5.2 end to end: HookSigner output against HookVerifier, every refusal with its code. */
class HookVerifierTest {
    static final String HOST = "hooks.platform.example";
    static final String PATH = "/platform/hooks/certificate/";
    static final String URL = "https://" + HOST + PATH;
    static final ObjectMapper JSON = new ObjectMapper();

    static TestPki pki;
    static KeyPair platformKey;
    static KeyPair rotatedKey;
    static TestPki.Leaf platformLeaf;

    HttpsTestServer server;
    MutableClock clock;
    HookVerifier verifier;

    @BeforeAll
    static void keys() {
        pki = TestPki.create();
        platformKey = KeyPairs.rsa();
        rotatedKey = KeyPairs.rsa();
        platformLeaf = pki.leaf(platformKey, HOST);
    }

    @BeforeEach
    void start() throws Exception {
        server = HttpsTestServer.start(pki, HOST, "hooks.staging-platform.example");
        serveChain(platformLeaf.chain());
        clock = new MutableClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
        verifier = verifier(pki);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    HookVerifier verifier(TestPki trust) {
        CertificateFetcher fetcher = new CertificateFetcher(pki.clientContext(), Duration.ofSeconds(2),
                Duration.ofSeconds(5), 65536, HostOverrides.parse(server.overrides(HOST,
                        "hooks.staging-platform.example")));
        return HookVerifier.builder().platformDomains("platform.example", "staging-platform.example")
                .trustAnchors(trust.anchors()).fetcher(fetcher).clock(clock).build();
    }

    void serveChain(List<X509Certificate> chain) throws Exception {
        serveDocument(JSON.writeValueAsString(Map.of("certificate", Pem.toPem(chain))));
    }

    void serveDocument(String json) {
        server.serve(PATH, "application/json", json);
    }

    byte[] body(Instant signatureTimestamp) {
        return body("\"" + TimestampWindow.format(signatureTimestamp) + "\"");
    }

    static byte[] body(String signatureTimestampJson) {
        return ("{\"user_id\":\"u42\",\"conversation_number\":1,"
                + "\"message_body\":\"{\\\"text\\\":\\\"hi\\\",\\\"type\\\":\\\"TEXT\\\",\\\"data\\\":"
                + "{\\\"quick_replies\\\":[]}}\",\"message_id\":123,\"sender\":\"user\","
                + "\"timestamp\":\"2026-11-22T10:00:00.000Z\",\"metadata\":{},\"signature_timestamp\":"
                + signatureTimestampJson + "}").getBytes(StandardCharsets.UTF_8);
    }

    static String sign(KeyPair key, byte[] body) {
        return new HookSigner(key.getPrivate(), URL, CryptoProviders.recommended()).sign(body).signature();
    }

    FailureCode refusal(String signature, String url, byte[] body) {
        VerificationException e = assertThrows(VerificationException.class,
                () -> verifier.verify(signature, url, body));
        assertTrue(e.getMessage().length() > 20, e::getMessage);
        return e.code();
    }

    @Test
    void hookSignerOutputVerifies() throws Exception {
        byte[] body = body(clock.instant());
        HookSigner signer = new HookSigner(platformKey.getPrivate(), URL, CryptoProviders.recommended());
        HookSigner.SignedHeaders headers = signer.sign(body);
        assertEquals(URL, headers.certificateUrl());
        HookVerifier.Verified ok = verifier.verify(headers.signature(), headers.certificateUrl(), body);
        assertEquals(URL, ok.certificateUrl());
        assertEquals(platformLeaf.cert(), ok.chain().leaf());
        assertEquals(clock.instant(), ok.signatureTimestamp());
        // another spelling of the same URL is the same cache entry: one download in all
        verifier.verify(headers.signature(), "HTTPS://Hooks.Platform.Example:443//platform/hooks/certificate/", body);
        assertEquals(1, server.hits(PATH));
    }

    @Test
    void concurrentHooksShareOneDownload() throws Exception {
        byte[] body = body(clock.instant());
        String sig = sign(platformKey, body);
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            CountDownLatch gate = new CountDownLatch(1);
            List<Future<HookVerifier.Verified>> results = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                results.add(pool.submit(() -> {
                    gate.await();
                    return verifier.verify(sig, URL, body);
                }));
            }
            gate.countDown();
            for (var f : results) {
                assertEquals(platformLeaf.cert(), f.get(10, TimeUnit.SECONDS).chain().leaf());
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(1, server.hits(PATH));
    }

    @Test
    void theSignerWantsAnRsaKey() {
        assertThrows(IllegalArgumentException.class,
                () -> new HookSigner(KeyPairs.ecP256().getPrivate(), URL, CryptoProviders.recommended()));
    }

    @Test
    void aTamperedBodyOrAnotherKeysSignatureIsAMismatch() {
        byte[] body = body(clock.instant());
        String sig = sign(platformKey, body);
        byte[] tampered = body.clone();
        tampered[tampered.length - 3]++;
        assertEquals(FailureCode.SIGNATURE_MISMATCH, refusal(sig, URL, tampered));
        byte[] longer = (new String(body, StandardCharsets.UTF_8) + " ").getBytes(StandardCharsets.UTF_8);
        assertEquals(FailureCode.SIGNATURE_MISMATCH, refusal(sig, URL, longer));
        assertEquals(FailureCode.SIGNATURE_MISMATCH, refusal(sign(rotatedKey, body), URL, body));
    }

    @Test
    void aMalformedSignatureIsRefusedAsSuch() {
        byte[] body = body(clock.instant());
        String sig = sign(platformKey, body);
        assertEquals(FailureCode.SIGNATURE_MALFORMED, refusal(null, URL, body));
        assertEquals(FailureCode.SIGNATURE_MALFORMED, refusal("", URL, body));
        assertEquals(FailureCode.SIGNATURE_MALFORMED, refusal("not base64!", URL, body));
        assertEquals(FailureCode.SIGNATURE_MALFORMED, refusal(sig.substring(0, sig.length() - 4), URL, body));
        assertEquals(FailureCode.SIGNATURE_MALFORMED, refusal(" " + sig, URL, body));
    }

    @Test
    void signatureTimestampWindowIs120SecondsBothWays() throws Exception {
        Instant now = clock.instant();
        for (long s : new long[]{-120, 120, 0}) {
            byte[] body = body(now.plusSeconds(s));
            verifier.verify(sign(platformKey, body), URL, body);
        }
        for (long s : new long[]{-121, 121, -3600}) {
            byte[] body = body(now.plusSeconds(s));
            assertEquals(FailureCode.TIMESTAMP_OUT_OF_WINDOW, refusal(sign(platformKey, body), URL, body), "" + s);
        }
    }

    @Test
    void aMissingOrMalformedSignatureTimestampIsRefused() {
        for (String ts : List.of("null", "1764928800", "\"2026-11-22T10:00:00\"", "\"2026-11-22T10:00:00.000Z\"")) {
            byte[] body = body(ts);
            assertEquals(FailureCode.TIMESTAMP_MALFORMED, refusal(sign(platformKey, body), URL, body), ts);
        }
        byte[] none = "{\"user_id\":\"u42\"}".getBytes(StandardCharsets.UTF_8);
        assertEquals(FailureCode.TIMESTAMP_MALFORMED, refusal(sign(platformKey, none), URL, none));
        byte[] notJson = "signature_timestamp".getBytes(StandardCharsets.UTF_8);
        assertEquals(FailureCode.TIMESTAMP_MALFORMED, refusal(sign(platformKey, notJson), URL, notJson));
    }

    @Test
    void duplicateKeysAreRefusedEvenWhenSigned() {
        String ts = TimestampWindow.format(clock.instant());
        byte[] twice = ("{\"signature_timestamp\":\"2000-01-01T00:00:00Z\",\"signature_timestamp\":\"" + ts + "\"}")
                .getBytes(StandardCharsets.UTF_8);
        VerificationException e = assertThrows(VerificationException.class,
                () -> verifier.verify(sign(platformKey, twice), URL, twice));
        assertEquals(FailureCode.TIMESTAMP_MALFORMED, e.code());
        assertTrue(e.getMessage().contains("Duplicate field 'signature_timestamp'"), e.getMessage());
        byte[] nested = ("{\"metadata\":{\"a\":1,\"a\":2},\"signature_timestamp\":\"" + ts + "\"}")
                .getBytes(StandardCharsets.UTF_8);
        assertEquals(FailureCode.TIMESTAMP_MALFORMED, refusal(sign(platformKey, nested), URL, nested));
        byte[] trailing = ("{\"signature_timestamp\":\"" + ts + "\"}{}").getBytes(StandardCharsets.UTF_8);
        assertEquals(FailureCode.TIMESTAMP_MALFORMED, refusal(sign(platformKey, trailing), URL, trailing));
    }

    @Test
    void aCertificateDocumentWithoutCertificateIsMalformed() throws Exception {
        byte[] body = body(clock.instant());
        String sig = sign(platformKey, body);
        for (String doc : List.of("{\"cert\":\"x\"}", "{\"certificate\":42}", "[]", "not json", "",
                "{\"certificate\":\"not pem\"}",
                JSON.writeValueAsString(Map.of("certificate", Pem.toPem(platformLeaf.key().getPrivate()))))) {
            serveDocument(doc);
            VerificationException e = assertThrows(VerificationException.class, () -> verifier.verify(sig, URL, body));
            assertEquals(FailureCode.CERT_MALFORMED, e.code(), doc);
        }
        String pem = Pem.toPem(platformLeaf.chain());
        serveDocument("{\"certificate\":\"x\",\"certificate\":" + JSON.writeValueAsString(pem) + "}");
        VerificationException e = assertThrows(VerificationException.class, () -> verifier.verify(sig, URL, body));
        assertEquals(FailureCode.CERT_MALFORMED, e.code());
        assertTrue(e.getMessage().contains("Duplicate field 'certificate'"), e.getMessage());
        // extra fields beside the certificate are fine
        serveDocument("{\"certificate\":" + JSON.writeValueAsString(pem) + ",\"expires\":\"later\"}");
        verifier.verify(sig, URL, body);
    }

    @Test
    void aCertificateForAnotherHostIsANameMismatch() throws Exception {
        serveChain(pki.leaf(platformKey, "other.platform.example").chain());
        byte[] body = body(clock.instant());
        assertEquals(FailureCode.CERT_NAME_MISMATCH, refusal(sign(platformKey, body), URL, body));
        // the SAN must name the host of the URL, not just any host under the platform domain
        assertEquals(FailureCode.CERT_NAME_MISMATCH, refusal(sign(platformKey, body),
                "https://hooks.staging-platform.example" + PATH, body));
    }

    @Test
    void aWildcardCertificateCoversTheHost() throws Exception {
        TestPki.Leaf wildcard = pki.leaf(platformKey, "*.platform.example");
        serveChain(wildcard.chain());
        byte[] body = body(clock.instant());
        HookVerifier.Verified ok = verifier.verify(sign(platformKey, body), URL, body);
        assertEquals(wildcard.cert(), ok.chain().leaf());
        assertEquals(URL, ok.certificateUrl());
        assertEquals(clock.instant(), ok.signatureTimestamp());
    }

    @Test
    void aWildcardCoversOneLabelOfItsOwnDomainOnly() throws Exception {
        byte[] body = body(clock.instant());
        for (String pattern : List.of("*.staging-platform.example", "*.hooks.platform.example", "*.example")) {
            serveChain(pki.leaf(platformKey, pattern).chain());
            HookVerifier fresh = verifier(pki); // nothing cached from the pattern before
            VerificationException e = assertThrows(VerificationException.class,
                    () -> fresh.verify(sign(platformKey, body), URL, body));
            assertEquals(FailureCode.CERT_NAME_MISMATCH, e.code(), pattern + ": " + e.getMessage());
        }
    }

    @Test
    void aCertificateIssuedForAnotherPurposeIsRefused() throws Exception {
        X509Certificate codeSigning = TestCertificates.forKey(platformKey.getPublic()).subject("CN=" + HOST).dns(HOST)
                .extendedKeyUsage(TestCertificates.CODE_SIGNING)
                .issuer(pki.intermediate, pki.intermediateKey.getPrivate()).build();
        serveChain(List.of(codeSigning, pki.intermediate));
        byte[] body = body(clock.instant());
        VerificationException e = assertThrows(VerificationException.class,
                () -> verifier.verify(sign(platformKey, body), URL, body));
        assertEquals(FailureCode.CERT_CHAIN_INVALID, e.code());
        assertTrue(e.getMessage().contains("extended key usage [codeSigning] allows none of"), e.getMessage());
    }

    @Test
    void anExpiredOrNotYetValidCertificateIsRefused() throws Exception {
        Instant now = clock.instant();
        serveChain(pki.leaf(platformKey, now.minus(Duration.ofDays(10)), now.minusSeconds(1), HOST).chain());
        byte[] body = body(now);
        assertEquals(FailureCode.CERT_EXPIRED, refusal(sign(platformKey, body), URL, body));
        serveChain(pki.leaf(platformKey, now.plusSeconds(60), now.plus(Duration.ofDays(10)), HOST).chain());
        assertEquals(FailureCode.CERT_NOT_YET_VALID, refusal(sign(platformKey, body), URL, body));
    }

    @Test
    void validityIsCheckedAgainOnEveryUseOfTheCachedCertificate() throws Exception {
        Instant now = clock.instant();
        TestPki.Leaf shortLived = pki.leaf(platformKey, now.minusSeconds(60), now.plusSeconds(600), HOST);
        serveChain(shortLived.chain());
        byte[] body = body(now);
        verifier.verify(sign(platformKey, body), URL, body);
        clock.set(shortLived.cert().getNotAfter().toInstant().plusSeconds(1));
        byte[] later = body(clock.instant());
        assertEquals(FailureCode.CERT_EXPIRED, refusal(sign(platformKey, later), URL, later));
        // a renewed certificate at the same URL is picked up at once
        serveChain(platformLeaf.chain());
        verifier.verify(sign(platformKey, later), URL, later);
    }

    @Test
    void aChainToAnUnknownRootIsUntrusted() throws Exception {
        TestPki other = TestPki.create();
        serveChain(other.leaf(platformKey, HOST).chain());
        byte[] body = body(clock.instant());
        assertEquals(FailureCode.CERT_UNTRUSTED, refusal(sign(platformKey, body), URL, body));
    }

    @Test
    void anEcPlatformCertificateIsUnsupported() throws Exception {
        serveChain(pki.leaf(KeyPairs.ecP256(), HOST).chain());
        byte[] body = body(clock.instant());
        assertEquals(FailureCode.CERT_KEY_UNSUPPORTED, refusal(sign(platformKey, body), URL, body));
    }

    @Test
    void aRefusedUrlStopsBeforeAnyDownload() {
        byte[] body = body(clock.instant());
        String sig = sign(platformKey, body);
        assertEquals(FailureCode.CERT_URL_HOST, refusal(sig, "https://platform.example" + PATH, body));
        assertEquals(FailureCode.CERT_URL_HOST, refusal(sig, "https://hooks.evilplatform.example" + PATH, body));
        assertEquals(FailureCode.CERT_URL_PATH, refusal(sig, "https://" + HOST + "/platform/hooks/cert/", body));
        assertEquals(FailureCode.CERT_URL_SCHEME, refusal(sig, "http://" + HOST + PATH, body));
        assertEquals(FailureCode.CERT_URL_MALFORMED, refusal(sig, null, body));
        assertEquals(0, server.hits(PATH));
    }

    @Test
    void aRotatedCertificateIsFetchedOnceOnMismatchAndNotMoreThanOncePerInterval() throws Exception {
        byte[] body = body(clock.instant());
        verifier.verify(sign(platformKey, body), URL, body);
        assertEquals(1, server.hits(PATH));

        // the platform rotates its key; the receiver's cached certificate is a minute old
        serveChain(pki.leaf(rotatedKey, HOST).chain());
        clock.advance(Duration.ofSeconds(60));
        byte[] next = body(clock.instant());
        HookVerifier.Verified ok = verifier.verify(sign(rotatedKey, next), URL, next);
        assertEquals(rotatedKey.getPublic(), ok.chain().publicKey());
        assertEquals(2, server.hits(PATH));

        // requests with bad signatures right after do not download again
        for (int i = 0; i < 5; i++) {
            assertEquals(FailureCode.SIGNATURE_MISMATCH, refusal(sign(platformKey, next), URL, next));
        }
        assertEquals(2, server.hits(PATH));
        verifier.verify(sign(rotatedKey, next), URL, next);
        assertEquals(2, server.hits(PATH));

        // once the refetch interval (30 s) has passed, one mismatch may download once more
        clock.advance(Duration.ofSeconds(30));
        byte[] third = body(clock.instant());
        assertEquals(FailureCode.SIGNATURE_MISMATCH, refusal(sign(platformKey, third), URL, third));
        assertEquals(3, server.hits(PATH));
        assertEquals(FailureCode.SIGNATURE_MISMATCH, refusal(sign(platformKey, third), URL, third));
        assertEquals(3, server.hits(PATH));
    }

    @Test
    void aFailedRefetchReportsTheMismatchAndKeepsTheCachedCertificate() throws Exception {
        byte[] body = body(clock.instant());
        verifier.verify(sign(platformKey, body), URL, body);
        server.respond(PATH, new HttpsTestServer.Response(503, "text/plain", new byte[0], Map.of()));
        clock.advance(Duration.ofSeconds(60));
        byte[] next = body(clock.instant());
        VerificationException e = assertThrows(VerificationException.class,
                () -> verifier.verify(sign(rotatedKey, next), URL, next));
        assertEquals(FailureCode.SIGNATURE_MISMATCH, e.code());
        assertTrue(e.getMessage().contains("CERT_FETCH_FAILED"), e.getMessage());
        // the certificate we had still verifies the platform's requests
        verifier.verify(sign(platformKey, next), URL, next);
        assertEquals(2, server.hits(PATH));
    }

    @Test
    void theBuilderNeedsAPlatformDomain() {
        assertThrows(IllegalStateException.class, () -> HookVerifier.builder().build());
        assertThrows(IllegalArgumentException.class, () -> HookVerifier.builder().platformDomains("com").build());
    }
}
