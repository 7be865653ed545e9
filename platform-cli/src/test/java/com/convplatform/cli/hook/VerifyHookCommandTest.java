package com.convplatform.cli.hook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.convplatform.cli.CliRun;
import com.convplatform.cli.TestFiles;
import com.convplatform.crypto.hook.HookSigner;
import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.crypto.sig.CryptoProviders;
import com.convplatform.crypto.testing.HttpsTestServer;
import com.convplatform.crypto.testing.TestPki;
import com.convplatform.crypto.time.TimestampWindow;

/** End to end: a platform certificate served over HTTPS on loopback, a hook signed with its key, the CLI verifying. */
class VerifyHookCommandTest {
    static final String HOST = "hooks.platform.example";
    static final String URL = "https://" + HOST + "/platform/hooks/certificate/";
    static final String JUNK_HOST = "junk.platform.example";

    static TestPki pki;
    static HttpsTestServer server;
    static HookSigner signer;

    @TempDir
    Path dir;

    @BeforeAll
    static void platform() {
        pki = TestPki.create();
        TestPki.Leaf leaf = pki.leaf(KeyPairs.rsa(), HOST, JUNK_HOST);
        signer = new HookSigner(leaf.key().getPrivate(), URL, CryptoProviders.recommended());
        String pem = Pem.toPem(leaf.chain()).replace("\n", "\\n");
        server = HttpsTestServer.start(pki, HOST, JUNK_HOST)
                .serve("/platform/hooks/certificate/", "application/json", "{\"certificate\": \"" + pem + "\"}");
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static byte[] hook(Instant signedAt) {
        return ("{\"user_id\":\"u42\",\"conversation_number\":1,\"message_body\":\"{\\\"text\\\":\\\"hi\\\"}\","
                + "\"message_id\":123,\"sender\":\"user\",\"timestamp\":\"2026-11-22T10:00:00.000Z\","
                + "\"metadata\":{},\"signature_timestamp\":\"" + TimestampWindow.format(signedAt) + "\"}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private CliRun.Result verify(byte[] body, String signature, String url, String... extra) {
        Path bodyFile = TestFiles.write(dir, "hook.json", body);
        Path root = TestFiles.cert(dir, "root.pem", pki.root);
        List<String> args = new ArrayList<>(List.of("verify-hook", "--body", bodyFile.toString(), "--signature",
                signature, "--certificate-url", url, "--domain", "platform.example"));
        args.addAll(Arrays.asList(extra));
        if (!args.contains("--no-trust")) {
            args.addAll(List.of("--trust", root.toString()));
        } else {
            args.remove("--no-trust");
        }
        if (!args.contains("--no-resolve")) {
            args.addAll(List.of("--resolve", server.override(HOST), "--resolve", server.override(JUNK_HOST)));
        } else {
            args.remove("--no-resolve");
        }
        return CliRun.run(args.toArray(String[]::new));
    }

    @Test
    void aFreshlySignedHookIsVerified() {
        byte[] body = hook(Instant.now());

        CliRun.Result r = verify(body, signer.sign(body).signature(), URL);

        assertEquals(0, r.exitCode(), r::toString);
        assertEquals("VERIFIED", r.out().lines().findFirst().orElse(""), r::toString);
        assertTrue(r.out().contains("certificate URL:     " + URL), r::toString);
        assertTrue(r.out().contains("CN=" + HOST), r::toString);
    }

    @Test
    void aDoubledSlashBeforeThePathIsAcceptedAndNormalised() {
        byte[] body = hook(Instant.now());

        CliRun.Result r = verify(body, signer.sign(body).signature(),
                "https://HOOKS.platform.example//platform/hooks/certificate/");

        assertEquals(0, r.exitCode(), r::toString);
        assertTrue(r.out().contains("certificate URL:     " + URL), r::toString);
    }

    @Test
    void aChangedBodyIsASignatureMismatch() {
        byte[] body = hook(Instant.now());
        String signature = signer.sign(body).signature();
        byte[] changed = new String(body, StandardCharsets.UTF_8).replace("u42", "u43")
                .getBytes(StandardCharsets.UTF_8);

        CliRun.Result r = verify(changed, signature, URL);

        assertFailure(r, "SIGNATURE_MISMATCH");
        assertTrue(r.out().contains("exactly as received"), r::toString);
    }

    @Test
    void aStaleHookIsOutOfWindowUnlessReplayedWithAt() {
        Instant signedAt = Instant.now().minus(10, ChronoUnit.MINUTES);
        byte[] body = hook(signedAt);
        String signature = signer.sign(body).signature();

        CliRun.Result stale = verify(body, signature, URL);
        assertFailure(stale, "TIMESTAMP_OUT_OF_WINDOW");
        assertTrue(stale.out().contains("120 s"), stale::toString);

        CliRun.Result replayed = verify(body, signature, URL, "--at", signedAt.plusSeconds(5).toString());
        assertEquals(0, replayed.exitCode(), replayed::toString);
    }

    @Test
    void aForeignCertificateHostIsRefusedBeforeAnyDownload() {
        byte[] body = hook(Instant.now());
        int before = server.hits("/platform/hooks/certificate/");

        CliRun.Result r = verify(body, signer.sign(body).signature(),
                "https://hooks.evil.example/platform/hooks/certificate/");

        assertFailure(r, "CERT_URL_HOST");
        assertEquals(before, server.hits("/platform/hooks/certificate/"));
    }

    @Test
    void anUntrustedServerIsAFetchFailure() {
        byte[] body = hook(Instant.now());

        CliRun.Result r = verify(body, signer.sign(body).signature(), URL, "--no-trust");

        assertFailure(r, "CERT_FETCH_FAILED");
        assertTrue(r.out().contains("--trust"), "the fix names --trust: " + r);
    }

    @Test
    void anUnresolvableHostIsAFetchFailure() {
        byte[] body = hook(Instant.now());

        CliRun.Result r = verify(body, signer.sign(body).signature(),
                "https://nowhere.platform.example/platform/hooks/certificate/");

        assertFailure(r, "CERT_FETCH_FAILED");
    }

    @Test
    void aDocumentWithoutCertificateIsMalformed() throws Exception {
        try (HttpsTestServer other = HttpsTestServer.start(pki, JUNK_HOST)
                .serve("/platform/hooks/certificate/", "application/json", "{\"cert\": \"nope\"}")) {
            byte[] body = hook(Instant.now());
            Path bodyFile = TestFiles.write(dir, "hook.json", body);
            CliRun.Result r = CliRun.run("verify-hook", "--body", bodyFile.toString(), "--signature",
                    signer.sign(body).signature(), "--certificate-url",
                    "https://" + JUNK_HOST + "/platform/hooks/certificate/", "--domain", "platform.example", "--trust",
                    TestFiles.cert(dir, "root.pem", pki.root).toString(), "--resolve", other.override(JUNK_HOST));

            assertFailure(r, "CERT_MALFORMED");
            assertTrue(r.out().contains("'certificate'"), r::toString);
        }
    }

    @Test
    void aBrokenSignatureHeaderIsMalformed() {
        byte[] body = hook(Instant.now());

        assertFailure(verify(body, "not base64!", URL), "SIGNATURE_MALFORMED");
    }

    @Test
    void theBodyCanComeFromStandardInput() {
        byte[] body = hook(Instant.now());
        Path root = TestFiles.cert(dir, "root.pem", pki.root);

        CliRun.Result r = CliRun.run(Clock.systemUTC(), new ByteArrayInputStream(body), "verify-hook",
                "--body", "-", "--signature", signer.sign(body).signature(), "--certificate-url", URL, "--domain",
                "platform.example", "--trust", root.toString(), "--resolve", server.override(HOST));

        assertEquals(0, r.exitCode(), r::toString);
    }

    @Test
    void usageErrors() {
        byte[] body = hook(Instant.now());
        String signature = signer.sign(body).signature();
        assertUsage(verify(body, signature, URL, "--resolve", "hooks.platform.example"), "host=address:port");
        assertUsage(verify(body, signature, URL, "--domain", "example"), "Not a platform domain");
        assertUsage(CliRun.run("verify-hook", "--body", dir.resolve("none.json").toString(), "--signature", signature,
                "--certificate-url", URL, "--domain", "platform.example"), "does not exist");
        assertUsage(CliRun.run("verify-hook", "--body", TestFiles.write(dir, "b.json", body).toString(),
                "--signature", signature, "--certificate-url", URL), "--domain");
    }

    private static void assertFailure(CliRun.Result r, String code) {
        assertEquals(1, r.exitCode(), r::toString);
        List<String> lines = r.out().lines().toList();
        assertTrue(lines.get(0).startsWith("NOT VERIFIED " + code + ": "), r::toString);
        assertTrue(lines.get(1).startsWith("  means: "), r::toString);
        assertTrue(lines.get(2).startsWith("  fix:   "), r::toString);
    }

    private static void assertUsage(CliRun.Result r, String expected) {
        assertEquals(2, r.exitCode(), r::toString);
        assertTrue(r.err().contains(expected), () -> "expected '" + expected + "' in\n" + r);
    }
}
