package com.convplatform.cli.request;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.convplatform.cli.CliRun;
import com.convplatform.cli.TestFiles;
import com.convplatform.crypto.json.JsonFields;
import com.convplatform.crypto.management.ManagementHeaders;
import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.crypto.sig.CryptoProviders;
import com.convplatform.crypto.sig.SignatureAlgorithm;
import com.convplatform.crypto.sig.Signatures;
import com.convplatform.crypto.testing.HttpsTestServer;
import com.convplatform.crypto.testing.TestPki;
import com.convplatform.crypto.time.TimestampWindow;

/**
 * {@code request token|clients} against a loopback stand-in of the management service that verifies every request
 * with crypto-common: the self-signed path (certificate from {@code cert create}) and the CA path (chain served over
 * HTTPS on loopback).
 */
class RequestCommandTest {
    static final String FQDN = "client.example.com";
    static final String CHAIN_URL = "https://" + FQDN + "/client.api/chain.pem";

    static TestPki pki;
    static TestPki.Leaf caLeaf;
    static HttpsTestServer chainServer;
    static TestPlatform platform;

    @TempDir
    static Path shared;

    @TempDir
    Path dir;

    static Path selfSignedKey;
    static Path caKey;

    @BeforeAll
    static void start() throws Exception {
        pki = TestPki.create();
        caLeaf = pki.leaf(KeyPairs.rsa(), FQDN);
        chainServer = HttpsTestServer.start(pki, FQDN).serve("/client.api/chain.pem", "application/x-pem-file",
                Pem.toPem(caLeaf.chain()));
        caKey = TestFiles.key(shared, "ca-key.pem", caLeaf.key());
        platform = new TestPlatform(pki, List.of(chainServer.override(FQDN)));

        selfSignedKey = shared.resolve("self-key.pem");
        Path cert = shared.resolve("self-cert.pem");
        CliRun.Result created = CliRun.run("cert", "create", "--fqdn", FQDN, "--out-key", selfSignedKey.toString(),
                "--out-cert", cert.toString());
        assertEquals(0, created.exitCode(), created::toString);
        platform.register("11111111-2222-4333-8444-555555555555",
                Pem.parseCertificates(TestFiles.read(cert)).get(0));
    }

    @AfterAll
    static void stop() {
        platform.close();
        chainServer.close();
    }

    @BeforeEach
    void clear() {
        platform.received.clear();
    }

    private static CliRun.Result request(String... args) {
        List<String> all = new ArrayList<>(List.of("request"));
        all.addAll(Arrays.asList(args));
        return CliRun.run(all.toArray(String[]::new));
    }

    @Test
    void tokenWithRegisteredSelfSignedCertificate() throws Exception {
        Instant before = Instant.now().minusSeconds(1);
        CliRun.Result r = request("token", "--base-url", platform.baseUrl(), "--fqdn", FQDN, "--client-id", "c-1",
                "--key", selfSignedKey.toString(), "--cert-uuid", "11111111-2222-4333-8444-555555555555");

        assertEquals(0, r.exitCode(), r::toString);
        assertEquals(List.of("HTTP 200", "{\"access_token\":\"token-for-c-1\",\"token_type\":\"Bearer\","
                + "\"expires_in\":3600,\"client_id\":\"c-1\"}"), r.out().lines().toList());
        TestPlatform.Received got = platform.last();
        assertEquals("/platform/management/token/issue/", got.path());
        String timestamp = JsonFields.topLevelString(got.body(), "timestamp").orElseThrow();
        assertEquals("{\"client_id\":\"c-1\",\"fqdn\":\"" + FQDN + "\",\"timestamp\":\"" + timestamp + "\"}",
                got.bodyText(), "the body of spec 2.1, fields in order, compact");
        Instant ts = TimestampWindow.parse(timestamp);
        assertFalse(ts.isBefore(before.truncatedTo(ChronoUnit.SECONDS)), "fresh timestamp");
        assertFalse(ts.isAfter(Instant.now()), "fresh timestamp");
        assertEquals("application/json", got.header("Content-Type"));
        assertNull(got.header(ManagementHeaders.CERT_CHAIN_URL), "only one certificate header");
    }

    @Test
    void tokenOnlyPrintsJustTheTokenOnSuccessAndTheWholeAnswerOnFailure() {
        CliRun.Result ok = request("token", "--base-url", platform.baseUrl(), "--fqdn", FQDN, "--client-id", "c-1",
                "--key", selfSignedKey.toString(), "--cert-uuid", "11111111-2222-4333-8444-555555555555",
                "--token-only");
        assertEquals(0, ok.exitCode(), ok::toString);
        assertEquals("token-for-c-1\n", ok.out().replace("\r\n", "\n"));

        CliRun.Result refused = request("token", "--base-url", platform.baseUrl(), "--fqdn", FQDN, "--client-id",
                "c-1", "--key", caKey.toString(), "--cert-uuid", "11111111-2222-4333-8444-555555555555",
                "--token-only");
        assertEquals(1, refused.exitCode(), refused::toString);
        assertTrue(refused.out().startsWith("HTTP 400"), refused::toString);
    }

    @Test
    void clientsWithCaSignedChainUrl() {
        CliRun.Result r = request("clients", "--base-url", platform.baseUrl(), "--fqdn", FQDN, "--key",
                caKey.toString(), "--cert-url", CHAIN_URL);

        assertEquals(0, r.exitCode(), r::toString);
        assertEquals("HTTP 200", r.out().lines().findFirst().orElse(""));
        assertTrue(r.out().contains("\"clients\""), r::toString);
        TestPlatform.Received got = platform.last();
        assertEquals("/platform/management/clients/", got.path());
        assertTrue(got.bodyText().matches("\\{\"fqdn\":\"client\\.example\\.com\",\"timestamp\":\"[0-9TZ:-]{20}\"}"),
                got.bodyText());
        assertEquals(CHAIN_URL, got.header(ManagementHeaders.CERT_CHAIN_URL));
        assertNull(got.header(ManagementHeaders.CERT_UUID));
        assertTrue(chainServer.hits("/client.api/chain.pem") >= 1, "the platform downloaded the chain");
    }

    @Test
    void baseUrlWithAPathPrefixAndTrailingSlash() {
        CliRun.Result r = request("clients", "--base-url", platform.baseUrl() + "/gateway/", "--fqdn", FQDN,
                "--key", caKey.toString(), "--cert-url", CHAIN_URL);

        assertEquals(0, r.exitCode(), r::toString);
        assertEquals("/gateway/platform/management/clients/", platform.last().path());
    }

    @Test
    void wrongKeyIsRefusedByThePlatformWithTheFix() {
        Path otherKey = TestFiles.key(dir, "other.pem", KeyPairs.rsa());

        CliRun.Result r = request("token", "--base-url", platform.baseUrl(), "--fqdn", FQDN, "--client-id", "c-1",
                "--key", otherKey.toString(), "--cert-url", CHAIN_URL);

        assertEquals(1, r.exitCode(), r::toString);
        assertEquals("HTTP 400", r.out().lines().findFirst().orElse(""));
        assertTrue(r.out().contains("\"error_code\":\"SIGNATURE_MISMATCH\""), r::toString);
        assertTrue(r.err().contains("The platform refused the request: SIGNATURE_MISMATCH"), r::toString);
        assertTrue(r.err().contains("fix:   Sign exactly the bytes you send"), r::toString);
    }

    /** management-service's one refusal, NOT_AUTHENTICATED: what it checked, and the command that checks each here. */
    @Test
    void notAuthenticatedListsWhatThePlatformCheckedAndTheCommandsThatCheckEach() {
        Path otherKey = TestFiles.key(dir, "other.pem", KeyPairs.ecP256());
        CliRun.Result r = request("token", "--base-url", platform.baseUrl() + "/uniform", "--fqdn", FQDN,
                "--client-id", "c-1", "--key", otherKey.toString(), "--cert-uuid",
                "11111111-2222-4333-8444-555555555555");

        assertEquals(1, r.exitCode(), r::toString);
        assertTrue(r.out().contains("\"error_code\":\"NOT_AUTHENTICATED\""), r::toString);
        for (String said : new String[]{"The platform refused the request: NOT_AUTHENTICATED",
                "  1. an account has the fqdn 'client.example.com'",
                "  2. the certificate: SignatureCertUUID 11111111-2222-4333-8444-555555555555 is the certificate_uuid",
                "platform-cli check-chain --chain <that certificate's PEM> --fqdn client.example.com --self-signed",
                "  3. the signature: Signature (SHA-1",
                "whether --key " + otherKey + " is that certificate's private key",
                "platform-cli sign --key " + otherKey + " --body FILE", "within 150 s of the platform's clock",
                "TIMESTAMP_OUT_OF_WINDOW", "this answer's X-Request-Id (req-1)"}) {
            assertTrue(r.err().contains(said), said + " in " + r);
        }
        CliRun.Result url = request("clients", "--base-url", platform.baseUrl() + "/uniform", "--fqdn", FQDN,
                "--key", otherKey.toString(), "--cert-url", CHAIN_URL);
        assertEquals(1, url.exitCode(), url::toString);
        assertTrue(url.err().contains("2. the certificate: the chain at " + CHAIN_URL + " downloads")
                && url.err().contains("platform-cli check-url --kind management --fqdn client.example.com '"
                        + CHAIN_URL + "', then platform-cli check-chain --chain <the file served there> --fqdn "
                        + FQDN),
                url::toString);
        assertFalse(url.err().contains("--self-signed"), url::toString);
    }

    @Test
    void aKeyOfTheWrongTypeIsNamedInTheFix() {
        Path ecKey = TestFiles.key(dir, "ec.pem", KeyPairs.ecP256());

        CliRun.Result r = request("clients", "--base-url", platform.baseUrl(), "--fqdn", FQDN, "--key",
                ecKey.toString(), "--cert-url", CHAIN_URL);

        assertEquals(1, r.exitCode(), r::toString);
        assertTrue(r.err().contains("SIGNATURE_MALFORMED"), r::toString);
        assertTrue(r.err().contains("key type"), "the fix suspects the key: " + r);
    }

    @Test
    void unknownCertificateUuid() {
        CliRun.Result r = request("clients", "--base-url", platform.baseUrl(), "--fqdn", FQDN, "--key",
                selfSignedKey.toString(), "--cert-uuid", "99999999-2222-4333-8444-555555555555");

        assertEquals(1, r.exitCode(), r::toString);
        assertTrue(r.err().contains("CERT_UNKNOWN") && r.err().contains("Register the self-signed certificate"),
                r::toString);
    }

    @Test
    void aChainUrlThePlatformWillRefuseIsWarnedAboutAndStillSent() {
        CliRun.Result r = request("clients", "--base-url", platform.baseUrl(), "--fqdn", FQDN, "--key",
                caKey.toString(), "--cert-url", "https://" + FQDN + "/certs/chain.pem");

        assertEquals(1, r.exitCode(), r::toString);
        assertTrue(r.err().contains("warning: the platform will refuse this --cert-url: CERT_URL_PATH"),
                r::toString);
        assertEquals(1, platform.received.size(), "sent anyway, so the platform's answer can be seen");
        assertTrue(r.out().contains("CERT_URL_PATH"), r::toString);
    }

    @Test
    void dryRunPrintsTheSignedRequestAndSendsNothing() throws Exception {
        CliRun.Result r = request("token", "--base-url", platform.baseUrl(), "--fqdn", FQDN, "--client-id", "c-9",
                "--key", caKey.toString(), "--cert-url", CHAIN_URL, "--dry-run");

        assertEquals(0, r.exitCode(), r::toString);
        assertTrue(platform.received.isEmpty());
        List<String> lines = r.out().lines().toList();
        assertEquals("POST " + platform.baseUrl() + "/platform/management/token/issue/", lines.get(0));
        assertTrue(lines.contains(ManagementHeaders.CERT_CHAIN_URL + ": " + CHAIN_URL), r::toString);
        String signature = lines.stream().filter(l -> l.startsWith("Signature: ")).findFirst().orElseThrow()
                .substring("Signature: ".length());
        String body = lines.get(lines.indexOf("") + 1);
        assertTrue(Signatures.verify(
                SignatureAlgorithm.SHA1_WITH_RSA, caLeaf.cert().getPublicKey(),
                body.getBytes(StandardCharsets.UTF_8),
                Signatures.decodeBase64(signature),
                CryptoProviders.jdk()), "the printed signature is over the printed body");
    }

    @Test
    void bothSignatureHeadersAreSentByDefaultAndSha1OnlyLeavesSignature256Out() throws Exception {
        assertEquals(0, request("token", "--base-url", platform.baseUrl(), "--fqdn", FQDN, "--client-id", "c-1",
                "--key", caKey.toString(), "--cert-url", CHAIN_URL).exitCode());
        TestPlatform.Received both = platform.last();
        assertTrue(Signatures.verify(SignatureAlgorithm.SHA1_WITH_RSA, caLeaf.cert().getPublicKey(), both.body(),
                Signatures.decodeBase64(both.header(ManagementHeaders.SIGNATURE)), CryptoProviders.jdk()));
        assertTrue(Signatures.verify(SignatureAlgorithm.SHA256_WITH_RSA, caLeaf.cert().getPublicKey(), both.body(),
                Signatures.decodeBase64(both.header(ManagementHeaders.SIGNATURE_256)), CryptoProviders.jdk()),
                "Signature-256 is SHA256withRSA over the same bytes");

        CliRun.Result r = request("clients", "--base-url", platform.baseUrl(), "--fqdn", FQDN, "--key",
                selfSignedKey.toString(), "--cert-uuid", "11111111-2222-4333-8444-555555555555", "--sha1-only");
        assertEquals(0, r.exitCode(), r::toString);
        TestPlatform.Received sha1 = platform.last();
        assertTrue(sha1.header(ManagementHeaders.SIGNATURE) != null);
        assertNull(sha1.header(ManagementHeaders.SIGNATURE_256), "--sha1-only sends Signature alone");

        CliRun.Result dry = request("token", "--base-url", platform.baseUrl(), "--fqdn", FQDN, "--client-id", "c-1",
                "--key", caKey.toString(), "--cert-url", CHAIN_URL, "--dry-run");
        assertTrue(dry.out().contains("signed with SHA1withRSA and SHA256withRSA"), dry::toString);
        assertTrue(dry.out().lines().anyMatch(l -> l.startsWith("Signature-256: ")), dry::toString);
    }

    @Test
    void verboseShowsTheRequestAndTheAnswerHeaders() {
        CliRun.Result r = request("clients", "--base-url", platform.baseUrl(), "--fqdn", FQDN, "--key",
                caKey.toString(), "--cert-url", CHAIN_URL, "--verbose");

        assertEquals(0, r.exitCode(), r::toString);
        assertTrue(r.err().contains("> POST " + platform.baseUrl() + "/platform/management/clients/"), r::toString);
        assertTrue(r.err().contains("> Signature: "), r::toString);
        assertTrue(r.err().toLowerCase().contains("< content-type: application/json"), r::toString);
    }

    @Test
    void serverErrorRedirectAndWrongPathAreFailures() {
        CliRun.Result failed = request("clients", "--base-url", platform.baseUrl() + "/fail", "--fqdn", FQDN,
                "--key", caKey.toString(), "--cert-url", CHAIN_URL);
        assertEquals(1, failed.exitCode(), failed::toString);
        assertEquals("HTTP 500", failed.out().lines().findFirst().orElse(""));
        assertTrue(failed.err().contains("not your signature"), failed::toString);

        CliRun.Result moved = request("clients", "--base-url", platform.baseUrl() + "/moved", "--fqdn", FQDN,
                "--key", caKey.toString(), "--cert-url", CHAIN_URL);
        assertEquals(1, moved.exitCode(), moved::toString);
        assertEquals("HTTP 302", moved.out().lines().findFirst().orElse(""));
        assertTrue(moved.err().contains("redirect to https://elsewhere.example/"), moved::toString);

        CliRun.Result missing = request("clients", "--base-url", platform.baseUrl() + "/nothing", "--fqdn", FQDN,
                "--key", caKey.toString(), "--cert-url", CHAIN_URL);
        assertEquals(1, missing.exitCode(), missing::toString);
        assertTrue(missing.err().contains("check --base-url"), missing::toString);
    }

    @Test
    void unreachablePlatformIsExitCodeThree() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        CliRun.Result r = request("clients", "--base-url", "http://127.0.0.1:" + closedPort, "--fqdn", FQDN,
                "--key", caKey.toString(), "--cert-url", CHAIN_URL);

        assertEquals(3, r.exitCode(), r::toString);
        assertEquals("", r.out());
        assertTrue(r.err().contains("Cannot reach the platform at http://127.0.0.1:" + closedPort), r::toString);
        assertTrue(r.err().contains("is the service running"), r::toString);
    }

    @Test
    void slowPlatformIsExitCodeThree() {
        long start = System.nanoTime();
        CliRun.Result r = request("clients", "--base-url", platform.baseUrl() + "/slow", "--fqdn", FQDN, "--key",
                caKey.toString(), "--cert-url", CHAIN_URL, "--timeout", "1");

        assertEquals(3, r.exitCode(), r::toString);
        assertTrue(r.err().contains("no answer within 1 s"), r::toString);
        assertTrue(Duration.ofNanos(System.nanoTime() - start).toMillis() < 2900, "gave up at the time-out");
    }

    @Test
    void httpsPlatformWithAPrivateCaNeedsInsecureTrust() {
        try (HttpsTestServer https = HttpsTestServer.start(pki, "localhost")
                .serve(ClientsCommand.PATH, "application/json", "{\"clients\":[]}")) {
            String base = "https://localhost:" + https.port();

            CliRun.Result untrusted = request("clients", "--base-url", base, "--fqdn", FQDN, "--key",
                    caKey.toString(), "--cert-url", CHAIN_URL);
            assertEquals(3, untrusted.exitCode(), untrusted::toString);
            assertTrue(untrusted.err().contains("--insecure-trust"), untrusted::toString);

            Path root = TestFiles.cert(dir, "root.pem", pki.root);
            CliRun.Result trusted = request("clients", "--base-url", base, "--fqdn", FQDN, "--key", caKey.toString(),
                    "--cert-url", CHAIN_URL, "--insecure-trust", root.toString());
            assertEquals(0, trusted.exitCode(), trusted::toString);
            assertEquals(List.of("HTTP 200", "{\"clients\":[]}"), trusted.out().lines().toList());
        }
    }

    @Test
    void usageErrorsSendNothing() {
        String base = platform.baseUrl();
        String key = caKey.toString();
        assertUsage(request("token", "--base-url", base, "--fqdn", FQDN, "--key", key, "--cert-url", CHAIN_URL),
                "--client-id");
        assertUsage(request("clients", "--base-url", base, "--fqdn", FQDN, "--key", key, "--cert-url", CHAIN_URL,
                "--cert-uuid", "x"), "mutually exclusive");
        assertUsage(request("clients", "--base-url", base, "--fqdn", FQDN, "--key", key), "--cert-url");
        assertUsage(request("clients", "--base-url", "ftp://x", "--fqdn", FQDN, "--key", key, "--cert-url",
                CHAIN_URL), "absolute http(s) URL");
        assertUsage(request("clients", "--base-url", base + "?a=b", "--fqdn", FQDN, "--key", key, "--cert-url",
                CHAIN_URL), "query");
        assertUsage(request("clients", "--base-url", base, "--fqdn", FQDN, "--key", dir.resolve("x").toString(),
                "--cert-url", CHAIN_URL), "does not exist");
        assertUsage(request("clients", "--base-url", base, "--fqdn", FQDN, "--key", key, "--cert-url", CHAIN_URL,
                "--insecure-trust", TestFiles.write(dir, "t.pem", "junk").toString()), "--insecure-trust file");
        assertUsage(request("clients", "--base-url", base, "--fqdn", FQDN, "--key", key, "--cert-url", CHAIN_URL,
                "--client-id", "c"), "--client-id");
        assertUsage(request(), "Missing required subcommand");
        assertUsage(request("--base-url", base), "Unknown option");
        assertTrue(platform.received.isEmpty(), "nothing was sent");
    }

    private static void assertUsage(CliRun.Result r, String expected) {
        assertEquals(2, r.exitCode(), r::toString);
        assertTrue(r.err().contains(expected), () -> "expected '" + expected + "' in\n" + r);
        assertEquals("", r.out(), r::toString);
    }
}
