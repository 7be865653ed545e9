package com.convplatform.cli.hook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

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

/** The local receiver: real hooks POSTed to it over loopback, verified against a certificate served over HTTPS. */
class ReceiveHooksCommandTest {
    static final String HOST = VerifyHookCommandTest.HOST;
    static final String URL = VerifyHookCommandTest.URL;

    static TestPki pki;
    static HttpsTestServer server;
    static HookSigner signer;
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @TempDir
    Path dir;

    @BeforeAll
    static void platform() {
        pki = TestPki.create();
        TestPki.Leaf leaf = pki.leaf(KeyPairs.rsa(), HOST);
        signer = new HookSigner(leaf.key().getPrivate(), URL, CryptoProviders.recommended());
        String pem = Pem.toPem(leaf.chain()).replace("\n", "\\n");
        server = HttpsTestServer.start(pki, HOST).serve("/platform/hooks/certificate/", "application/json",
                "{\"certificate\": \"" + pem + "\"}");
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private CompletableFuture<CliRun.Result> receive(int port, String... extra) {
        Path root = TestFiles.cert(dir, "root.pem", pki.root);
        List<String> args = new ArrayList<>(List.of("receive-hooks", "--port", String.valueOf(port), "--domain",
                "platform.example", "--trust", root.toString(), "--resolve", server.override(HOST)));
        args.addAll(List.of(extra));
        return CompletableFuture.supplyAsync(() -> CliRun.run(args.toArray(String[]::new)));
    }

    /**
     * POSTs a hook to the receiver once it listens: tried again while the connection is refused, up to the receivers'
     * own --timeout in these tests (30 s). A poll for an event (platform-cli has no Awaitility), not a guessed wait.
     */
    private int post(int port, String delivery, byte[] body, String signature) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            try {
                HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/hooks/demo"))
                        .header("signature", signature).header("signature-certificate-url", URL)
                        .header("X-Hook-Delivery-Id", delivery).header("X-Hook-Attempt", "1")
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
                return http.send(req, HttpResponse.BodyHandlers.discarding()).statusCode();
            } catch (java.net.ConnectException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(50); // the receiver is still starting: the poll's interval before the next try
            }
        }
    }

    @Test
    void aVerifiedHookIsAnswered200AndSavedAndTheReceiverExitsZeroAfterCount() throws Exception {
        int port = freePort();
        CompletableFuture<CliRun.Result> run = receive(port, "--count", "1", "--timeout", "30", "--out-dir",
                dir.resolve("hooks").toString());
        byte[] body = VerifyHookCommandTest.hook(Instant.now());

        assertEquals(200, post(port, "d-0", body, signer.sign(body).signature()));

        CliRun.Result r = run.get(30, TimeUnit.SECONDS);
        assertEquals(0, r.exitCode(), r::toString);
        assertTrue(r.out().startsWith("VERIFIED delivery=d-0 attempt=1 path=/hooks/demo signed by CN=" + HOST),
                r::toString);
        assertTrue(r.out().contains("\"message_id\":123"), r::toString);
        assertTrue(r.err().contains("receiving hooks on http://127.0.0.1:" + port), r::toString);
        try (var files = Files.list(dir.resolve("hooks"))) {
            List<Path> saved = files.toList();
            assertEquals(1, saved.size());
            assertEquals("d-0-1.json", saved.get(0).getFileName().toString());
            assertEquals(new String(body, StandardCharsets.UTF_8), Files.readString(saved.get(0)));
        }
    }

    @Test
    void aTamperedHookIsAnswered400WithTheFailureCodeAndTheExitCodeIsOne() throws Exception {
        int port = freePort();
        CompletableFuture<CliRun.Result> run = receive(port, "--count", "2", "--timeout", "30");
        byte[] body = VerifyHookCommandTest.hook(Instant.now());
        String signature = signer.sign(body).signature();
        byte[] changed = new String(body, StandardCharsets.UTF_8).replace("u42", "u43")
                .getBytes(StandardCharsets.UTF_8);

        assertEquals(400, post(port, "d-tampered", changed, signature)); // spec 4.4 and 5.2
        assertEquals(200, post(port, "d-good", body, signature));

        CliRun.Result r = run.get(30, TimeUnit.SECONDS);
        assertEquals(1, r.exitCode(), r::toString);
        assertTrue(r.out().contains("NOT VERIFIED delivery=d-tampered: SIGNATURE_MISMATCH"), r::toString);
        // The fix speaks to whoever runs the receiver: what the failure means for this hook, not how to send one.
        assertTrue(r.out().contains("  fix:   The body is not what the platform signed"), r::toString);
        assertTrue(r.out().contains("Do not act on this hook."), r::toString);
        assertTrue(r.out().contains("\nVERIFIED delivery=d-good attempt=1"), r::toString);
    }

    @Test
    void withTooFewHooksBeforeTheTimeoutItExitsOne() throws Exception {
        CliRun.Result r = receive(freePort(), "--count", "1", "--timeout", "1").get(30, TimeUnit.SECONDS);

        assertEquals(1, r.exitCode(), r::toString);
        assertTrue(r.err().contains("timed out after 1 s with 0 of 1 hook(s)"), r::toString);
    }

    @Test
    void aPortInUseIsAUsageError() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            CliRun.Result r = receive(taken.getLocalPort(), "--count", "1", "--timeout", "5").get(30,
                    TimeUnit.SECONDS);

            assertEquals(2, r.exitCode(), r::toString);
            assertTrue(r.err().contains("is in use"), r::toString);
        }
    }
}
