package com.convplatform.crypto.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLContext;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.convplatform.crypto.FailureCode;
import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.net.OutboundAddresses;
import com.convplatform.crypto.testing.Await;
import com.convplatform.crypto.testing.HttpsTestServer;
import com.convplatform.crypto.testing.TestPki;
import com.convplatform.crypto.url.CertificateUrl;
import com.convplatform.crypto.url.ManagementCertUrlRule;

/** Issue 2, rule g: one GET with hard limits, no redirects, TLS with the URL's host name. */
class CertificateFetcherTest {
    static final String HOST = "client.example.com";
    static final int LIMIT = 1024;
    static TestPki pki;
    static HttpsTestServer server;

    @BeforeAll
    static void start() {
        pki = TestPki.create();
        server = HttpsTestServer.start(pki, HOST);
        server.serve("/client.api/ok.pem", "application/x-pem-file", "x".repeat(LIMIT));
        server.serve("/client.api/big.pem", "application/x-pem-file", "x".repeat(LIMIT + 1));
        server.serve("/client.api/64k.pem", "application/x-pem-file", "x".repeat(64 * 1024));
        server.serve("/client.api/64k-and-1.pem", "application/x-pem-file", "x".repeat(64 * 1024 + 1));
        server.respond("/client.api/moved.pem", new HttpsTestServer.Response(302, "text/plain",
                "moved".getBytes(StandardCharsets.US_ASCII), Map.of("Location", "/client.api/ok.pem")));
        server.respond("/client.api/gone.pem", new HttpsTestServer.Response(301, "text/plain", new byte[0],
                Map.of("Location", "https://elsewhere.example.com/client.api/ok.pem")));
        server.respond("/client.api/error.pem",
                new HttpsTestServer.Response(500, "text/plain", "boom".getBytes(StandardCharsets.US_ASCII), Map.of()));
        server.respond("/client.api/empty.pem", new HttpsTestServer.Response(204, "text/plain", new byte[0], Map.of()));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static CertificateUrl url(String path) throws VerificationException {
        return new ManagementCertUrlRule(HOST).check("https://" + HOST + path);
    }

    static CertificateFetcher fetcher(SSLContext trust, int port, Duration total) {
        return new CertificateFetcher(trust, Duration.ofSeconds(2), total, LIMIT,
                HostOverrides.parse(List.of(HOST + "=127.0.0.1:" + port)));
    }

    static CertificateFetcher fetcher() {
        return fetcher(pki.clientContext(), server.port(), Duration.ofSeconds(5));
    }

    static VerificationException refused(CertificateFetcher f, CertificateUrl url) {
        VerificationException e = assertThrows(VerificationException.class, () -> f.fetch(url));
        assertEquals(FailureCode.CERT_FETCH_FAILED, e.code(), e::getMessage);
        return e;
    }

    @Test
    void aBodyUpToTheLimitIsDownloadedThroughTheHostOverride() throws Exception {
        byte[] body = fetcher().fetch(url("/client.api/ok.pem"));
        assertEquals("x".repeat(LIMIT), new String(body, StandardCharsets.US_ASCII));
        assertEquals(LIMIT, fetcher().maxBytes());
    }

    @Test
    void redirectsAreNotFollowed() throws Exception {
        int before = server.hits("/client.api/ok.pem");
        VerificationException e = refused(fetcher(), url("/client.api/moved.pem"));
        assertTrue(e.getMessage().contains("answered 302 (a redirect); redirects are not followed"), e.getMessage());
        refused(fetcher(), url("/client.api/gone.pem"));
        assertEquals(before, server.hits("/client.api/ok.pem"), "the redirect target was requested");
    }

    @Test
    void onlyStatus200IsAccepted() throws Exception {
        assertTrue(refused(fetcher(), url("/client.api/missing.pem")).getMessage()
                .endsWith("the server answered 404, not 200"));
        assertTrue(refused(fetcher(), url("/client.api/error.pem")).getMessage()
                .endsWith("the server answered 500, not 200"));
        assertTrue(refused(fetcher(), url("/client.api/empty.pem")).getMessage()
                .endsWith("the server answered 204, not 200"));
    }

    @Test
    void aContentLengthOverTheLimitIsRefused() throws Exception {
        VerificationException e = refused(fetcher(), url("/client.api/big.pem"));
        assertEquals("Downloading https://client.example.com/client.api/big.pem: the response is larger than "
                + LIMIT + " bytes", e.getMessage());
    }

    @Test
    void aServerWeDoNotTrustIsRefusedInTls() throws Exception {
        TestPki other = TestPki.create();
        VerificationException e = refused(fetcher(other.clientContext(), server.port(), Duration.ofSeconds(5)),
                url("/client.api/ok.pem"));
        assertEquals("Downloading https://client.example.com/client.api/ok.pem failed: the server's TLS certificate is"
                + " not trusted (the server must present a publicly trusted certificate for the host)", e.getMessage());
    }

    @Test
    void theHostOverrideKeepsTlsHostNameVerification() throws Exception {
        // a trusted certificate, but for another name: connecting by address must not weaken the name check
        try (HttpsTestServer wrongName = HttpsTestServer.start(pki, "other.example.com")) {
            wrongName.serve("/client.api/ok.pem", "text/plain", "x");
            VerificationException e = refused(fetcher(pki.clientContext(), wrongName.port(), Duration.ofSeconds(5)),
                    url("/client.api/ok.pem"));
            assertEquals("Downloading https://client.example.com/client.api/ok.pem failed: the server's TLS certificate"
                    + " is not valid for client.example.com (the server must present a publicly trusted certificate"
                    + " for the host)", e.getMessage());
            assertEquals(0, wrongName.hits("/client.api/ok.pem"));
        }
    }

    @Test
    void theNormalisedPathAndHostAreWhatIsRequested() throws Exception {
        try (RawHttpsPeer peer = new RawHttpsPeer(pki.serverContext(HOST), out -> write(out,
                "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))) {
            CertificateUrl u = new ManagementCertUrlRule(HOST)
                    .check("HTTPS://Client.Example.com:443//client.api/x/../cert.pem");
            assertEquals("ok", new String(fetcher(pki.clientContext(), peer.port(), Duration.ofSeconds(5)).fetch(u),
                    StandardCharsets.US_ASCII));
            String head = peer.requests().get(0);
            assertTrue(head.startsWith("GET /client.api/cert.pem HTTP/1.1\r\nHost: client.example.com\r\n"), head);
        }
    }

    @Test
    void chunkedBodiesAreReassembledAndLimited() throws Exception {
        try (RawHttpsPeer ok = new RawHttpsPeer(pki.serverContext(HOST), out -> write(out,
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n"))) {
            assertEquals("hello world", new String(
                    fetcher(pki.clientContext(), ok.port(), Duration.ofSeconds(5)).fetch(url("/client.api/c.pem")),
                    StandardCharsets.US_ASCII));
        }
        // many small chunks that add up to more than the limit
        try (RawHttpsPeer big = new RawHttpsPeer(pki.serverContext(HOST), out -> {
            write(out, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
            for (int i = 0; i < 2 * LIMIT / 100; i++) {
                write(out, "64\r\n" + "y".repeat(100) + "\r\n");
            }
            write(out, "0\r\n\r\n");
        })) {
            VerificationException e = refused(fetcher(pki.clientContext(), big.port(), Duration.ofSeconds(5)),
                    url("/client.api/c.pem"));
            assertTrue(e.getMessage().endsWith("larger than " + LIMIT + " bytes"), e.getMessage());
        }
        // one chunk announced as enormous, after some data (no integer overflow)
        try (RawHttpsPeer huge = new RawHttpsPeer(pki.serverContext(HOST), out -> write(out,
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n7fffffffffffffff\r\nzzzz"))) {
            VerificationException e = refused(fetcher(pki.clientContext(), huge.port(), Duration.ofSeconds(5)),
                    url("/client.api/c.pem"));
            assertTrue(e.getMessage().endsWith("larger than " + LIMIT + " bytes"), e.getMessage());
        }
        try (RawHttpsPeer negative = new RawHttpsPeer(pki.serverContext(HOST), out -> write(out,
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\na\r\n0\r\n\r\n"))) {
            VerificationException e = refused(fetcher(pki.clientContext(), negative.port(), Duration.ofSeconds(5)),
                    url("/client.api/c.pem"));
            assertTrue(e.getMessage().endsWith("bad chunk size"), e.getMessage());
        }
    }

    @Test
    void aStreamedBodyWithoutLengthIsLimited() throws Exception {
        try (RawHttpsPeer ok = new RawHttpsPeer(pki.serverContext(HOST),
                out -> write(out, "HTTP/1.0 200 OK\r\n\r\n" + "z".repeat(LIMIT)))) {
            assertEquals(LIMIT,
                    fetcher(pki.clientContext(), ok.port(), Duration.ofSeconds(5))
                            .fetch(url("/client.api/s.pem")).length);
        }
        try (RawHttpsPeer big = new RawHttpsPeer(pki.serverContext(HOST), out -> {
            write(out, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n");
            for (int i = 0; i < 100; i++) {
                write(out, "z".repeat(LIMIT));
            }
        })) {
            VerificationException e = refused(fetcher(pki.clientContext(), big.port(), Duration.ofSeconds(5)),
                    url("/client.api/s.pem"));
            assertTrue(e.getMessage().endsWith("larger than " + LIMIT + " bytes"), e.getMessage());
        }
    }

    @Test
    void contradictoryOrNegativeLengthsAreRefused() throws Exception {
        for (String headers : List.of("Content-Length: -1\r\n", "Content-Length: 2\r\nContent-Length: 3\r\n",
                "Content-Length: 1x\r\n")) {
            try (RawHttpsPeer peer = new RawHttpsPeer(pki.serverContext(HOST),
                    out -> write(out, "HTTP/1.1 200 OK\r\n" + headers + "\r\nabc"))) {
                VerificationException e = refused(fetcher(pki.clientContext(), peer.port(), Duration.ofSeconds(5)),
                        url("/client.api/l.pem"));
                assertTrue(e.getMessage().endsWith("bad Content-Length"), e.getMessage());
            }
        }
    }

    @Test
    void aSilentServerHitsTheDeadline() throws Exception {
        CountDownLatch done = new CountDownLatch(1); // the peer says nothing until the test is over
        try (RawHttpsPeer silent = new RawHttpsPeer(pki.serverContext(HOST), out -> done.await(30, TimeUnit.SECONDS))) {
            long start = System.nanoTime();
            VerificationException e = refused(fetcher(pki.clientContext(), silent.port(), Duration.ofMillis(500)),
                    url("/client.api/slow.pem"));
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertTrue(e.getMessage().contains("timed out (limit 500 ms)"), e.getMessage());
            assertTrue(ms < 3_000, "took " + ms + " ms");
        } finally {
            done.countDown();
        }
    }

    /**
     * Two downloads from one host hang on a silent server: a third request for that host is refused at once
     * (CERT_FETCH_BUSY) without connecting, a download from another host goes ahead, and once the two end the host
     * takes downloads again (issue 22: a storm of requests naming one FQDN holds two threads, not the worker pool).
     */
    @Test
    void atMostTwoDownloadsFromOneHostRunAtOnceAndTheNextIsRefusedAtOnce() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicInteger connections = new java.util.concurrent.atomic.AtomicInteger();
        try (RawHttpsPeer silent = new RawHttpsPeer(pki.serverContext(HOST), out -> {
            connections.incrementAndGet();
            release.await(30, TimeUnit.SECONDS);
        }); HttpsTestServer other = HttpsTestServer.start(pki, "other.example.com")) {
            other.serve("/client.api/ok.pem", "text/plain", "x".repeat(LIMIT));
            CertificateFetcher f = new CertificateFetcher(pki.clientContext(), Duration.ofSeconds(2),
                    Duration.ofSeconds(20), LIMIT, HostOverrides.parse(List.of(HOST + "=127.0.0.1:" + silent.port(),
                            "other.example.com=127.0.0.1:" + other.port())),
                    OutboundAddresses.guarded(), CertificateFetcher.DEFAULT_PER_HOST);
            var pool = java.util.concurrent.Executors.newFixedThreadPool(2);
            try {
                for (int i = 0; i < 2; i++) {
                    pool.submit(() -> f.fetch(url("/client.api/hang.pem")));
                }
                Await.until(Duration.ofSeconds(10), () -> connections.get() == 2, "two downloads connected");
                long start = System.nanoTime();
                CertificateUrl third = url("/client.api/third.pem");
                VerificationException busy = assertThrows(VerificationException.class, () -> f.fetch(third));
                long ms = (System.nanoTime() - start) / 1_000_000;
                assertEquals(FailureCode.CERT_FETCH_BUSY, busy.code());
                assertEquals("2 certificate downloads from client.example.com are already running (the most at once);"
                        + " try again in a few seconds", busy.getMessage());
                assertTrue(ms < 1_000, "refused after " + ms + " ms");
                assertEquals(2, connections.get());
                // another host is not held up
                assertEquals(LIMIT, f.fetch(new ManagementCertUrlRule("other.example.com")
                        .check("https://other.example.com/client.api/ok.pem")).length);
            } finally {
                release.countDown();
                pool.shutdown();
                assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
            }
            // the two have ended (the peer closed them): the host takes downloads again
            refused(f, url("/client.api/again.pem")); // CERT_FETCH_FAILED: it connected, and the peer has closed
        }
    }

    @Test
    void aServerThatDripsBytesHitsTheOverallDeadline() throws Exception {
        // every read succeeds quickly, so only a deadline over the whole response stops this
        try (RawHttpsPeer drip = new RawHttpsPeer(pki.serverContext(HOST), out -> {
            write(out, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n");
            for (int i = 0; i < 1000; i++) {
                write(out, "d");
                Thread.sleep(50);
            }
        })) {
            long start = System.nanoTime();
            VerificationException e = refused(fetcher(pki.clientContext(), drip.port(), Duration.ofMillis(700)),
                    url("/client.api/drip.pem"));
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertTrue(e.getMessage().contains("timed out"), e.getMessage());
            assertTrue(ms < 3_000, "took " + ms + " ms");
        }
    }

    @Test
    void aServerThatDripsItsTlsHandshakeHitsTheOverallDeadline() throws Exception {
        // a relay that passes the real server's handshake on one byte every 20 ms: no single read ever waits long
        try (RawHttpsPeer upstream = new RawHttpsPeer(pki.serverContext(HOST),
                out -> write(out, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"));
                ServerSocket relay = new ServerSocket(0, 5, InetAddress.getByName("127.0.0.1"))) {
            Thread accept = new Thread(() -> {
                try (Socket client = relay.accept();
                        Socket server = new Socket("127.0.0.1", upstream.port())) {
                    Thread up = new Thread(() -> {
                        try {
                            client.getInputStream().transferTo(server.getOutputStream());
                        } catch (IOException e) {
                            // the client closed
                        }
                    });
                    up.setDaemon(true);
                    up.start();
                    InputStream in = server.getInputStream();
                    OutputStream out = client.getOutputStream();
                    int b;
                    while ((b = in.read()) >= 0) {
                        out.write(b);
                        out.flush();
                        Thread.sleep(20);
                    }
                } catch (IOException | InterruptedException e) {
                    // the client gave up: expected
                }
            });
            accept.setDaemon(true);
            accept.start();
            long start = System.nanoTime();
            VerificationException e = refused(fetcher(pki.clientContext(), relay.getLocalPort(),
                    Duration.ofMillis(700)), url("/client.api/hs.pem"));
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertTrue(e.getMessage().contains("timed out (limit 700 ms)"), e.getMessage());
            assertTrue(ms < 3_000, "took " + ms + " ms");
        }
    }

    @Test
    void aClosedPortFailsWithTheUrlInTheMessage() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            port = s.getLocalPort();
        }
        VerificationException e = refused(fetcher(pki.clientContext(), port, Duration.ofSeconds(2)),
                url("/client.api/x.pem"));
        assertEquals("Connecting to client.example.com for https://client.example.com/client.api/x.pem failed: the"
                + " server refused the connection", e.getMessage());
    }

    /** The guard (not an override): a host that resolves to an inside address is refused before any connection. */
    @Test
    void aHostThatResolvesToAnInsideAddressIsNeverConnectedTo() throws Exception {
        OutboundAddresses guard = OutboundAddresses.of(host -> new InetAddress[]{InetAddress.getByName("127.0.0.1")},
                false);
        CertificateFetcher f = new CertificateFetcher(pki.clientContext(), Duration.ofSeconds(2),
                Duration.ofSeconds(5), LIMIT, HostOverrides.none(), guard);
        int before = server.hits("/client.api/ok.pem");
        VerificationException e = refused(f, url("/client.api/ok.pem"));
        assertEquals("Downloading https://client.example.com/client.api/ok.pem failed: the host client.example.com"
                + " resolves to 127.0.0.1, a loopback address; only public addresses are allowed", e.getMessage());
        assertEquals(before, server.hits("/client.api/ok.pem"));
    }

    /**
     * The host is resolved once, and the connection goes to the address resolved (here, with the private-network seam
     * on, 127.0.0.1:443, where nothing listens): a second DNS answer is never asked for.
     */
    @Test
    void theHostIsResolvedOnceAndTheCheckedAddressIsTheOneConnectedTo() throws Exception {
        java.util.concurrent.atomic.AtomicInteger lookups = new java.util.concurrent.atomic.AtomicInteger();
        OutboundAddresses seam = OutboundAddresses.of(host -> {
            lookups.incrementAndGet();
            return new InetAddress[]{InetAddress.getByName("127.0.0.1")};
        }, true);
        CertificateFetcher f = new CertificateFetcher(pki.clientContext(), Duration.ofSeconds(2),
                Duration.ofSeconds(5), LIMIT, HostOverrides.none(), seam);
        VerificationException e = refused(f, url("/client.api/ok.pem"));
        assertEquals("Connecting to client.example.com for https://client.example.com/client.api/ok.pem failed: the"
                + " server refused the connection", e.getMessage());
        assertEquals(1, lookups.get());
    }

    @Test
    void extraRootsAreAddedToTheJvmsRoots() throws Exception {
        assertEquals(CertificateFetcher.defaultSslContext(), TlsTrust.withExtraRoots(List.of()));
        assertEquals(CertificateFetcher.defaultSslContext(), TlsTrust.withExtraRoots(null));
        CertificateFetcher f = fetcher(TlsTrust.withExtraRoots(List.of(pki.root)), server.port(),
                Duration.ofSeconds(5));
        assertEquals(LIMIT, f.fetch(url("/client.api/ok.pem")).length);
        // the JVM's roots alone do not trust the test PKI
        refused(fetcher(CertificateFetcher.defaultSslContext(), server.port(), Duration.ofSeconds(5)),
                url("/client.api/ok.pem"));
    }

    @Test
    void hostOverridesParseStrictlyAndAreOffByDefault() {
        assertTrue(HostOverrides.none().isEmpty());
        assertTrue(HostOverrides.parse(List.of("", "  ")).isEmpty());
        HostOverrides o = HostOverrides.parse(List.of(" Client.Example.com=127.0.0.1:8443 ", "b.example=[::1]:9"));
        assertEquals(new InetSocketAddress("127.0.0.1", 8443), o.lookup("CLIENT.example.COM").orElseThrow());
        assertEquals(9, o.lookup("b.example").orElseThrow().getPort());
        assertFalse(o.lookup("other.example.com").isPresent());
        for (String bad : List.of("client.example.com", "=127.0.0.1:1", "h=127.0.0.1", "h=127.0.0.1:",
                "h=127.0.0.1:x", "h=127.0.0.1:0", "h=127.0.0.1:65536", "h=:443")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> HostOverrides.parse(List.of(bad)), bad);
            assertTrue(e.getMessage().contains(bad.trim()), e.getMessage());
        }
        assertEquals(new InetSocketAddress("127.0.0.1", 1),
                HostOverrides.of(Map.of("H.example", new InetSocketAddress("127.0.0.1", 1))).lookup("h.example")
                        .orElseThrow());
    }

    @Test
    void theDefaultsAreTheDocumentedOnes() throws Exception {
        // the documented limits (README: 64 KiB, 5 s in all), observed on a fetcher made with the defaults
        CertificateFetcher defaults = CertificateFetcher.withDefaults(pki.clientContext(),
                HostOverrides.parse(List.of(HOST + "=127.0.0.1:" + server.port())));
        assertEquals(64 * 1024, defaults.fetch(url("/client.api/64k.pem")).length);
        VerificationException big = refused(defaults, url("/client.api/64k-and-1.pem"));
        assertEquals("Downloading https://client.example.com/client.api/64k-and-1.pem: the response is larger than"
                + " 65536 bytes", big.getMessage());
        CountDownLatch done = new CountDownLatch(1);
        try (RawHttpsPeer silent = new RawHttpsPeer(pki.serverContext(HOST), out -> done.await(30, TimeUnit.SECONDS))) {
            CertificateFetcher toSilent = CertificateFetcher.withDefaults(pki.clientContext(),
                    HostOverrides.parse(List.of(HOST + "=127.0.0.1:" + silent.port())));
            long start = System.nanoTime();
            VerificationException slow = refused(toSilent, url("/client.api/silent.pem"));
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertTrue(slow.getMessage().contains("timed out (limit 5000 ms)"), slow.getMessage());
            assertTrue(ms >= 4_500 && ms < 8_000, "took " + ms + " ms");
        } finally {
            done.countDown();
        }
        // the fetcher for production uses the same limits, with the JVM's roots and no overrides
        assertEquals(defaults.maxBytes(), CertificateFetcher.withDefaults().maxBytes());
        assertThrows(IllegalArgumentException.class, () -> new CertificateFetcher(pki.clientContext(),
                Duration.ofSeconds(1), Duration.ofSeconds(1), 0, HostOverrides.none()));
    }

    private static void write(OutputStream out, String s) throws IOException {
        out.write(s.getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }
}
