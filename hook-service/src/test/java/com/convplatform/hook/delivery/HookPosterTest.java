package com.convplatform.hook.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.X509TrustManager;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.convplatform.crypto.chain.TrustAnchors;
import com.convplatform.crypto.net.OutboundAddresses;
import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.testing.TestPki;
import com.convplatform.testsupport.StubServer;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsExchange;

import io.vertx.core.Vertx;

/**
 * Where a hook goes: the host is resolved once, the guard checks those addresses, and the connection goes to exactly
 * the checked addresses (the next only when one refuses) while Host, SNI and the certificate check keep the URL's
 * host. The receivers are real servers
 * on 127.0.0.1; host names that no DNS knows are given addresses by resolvers the tests control.
 */
class HookPosterTest {
    static final Duration CONNECT = Duration.ofSeconds(2);
    static final Duration READ = Duration.ofSeconds(5);
    static Vertx vertx;
    static final List<String> HOSTS = new CopyOnWriteArrayList<>();
    static final List<String> SNI = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void vertx() {
        vertx = Vertx.vertx();
    }

    @AfterAll
    static void close() {
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    static void answer(HttpExchange ex) throws IOException {
        ex.getRequestBody().readAllBytes();
        HOSTS.add(ex.getRequestHeaders().getFirst("Host"));
        if (ex instanceof HttpsExchange tls && tls.getSSLSession() instanceof ExtendedSSLSession s) {
            s.getRequestedServerNames().forEach(n -> SNI.add(((SNIHostName) n).getAsciiName()));
        }
        ex.getResponseHeaders().set("Retry-After", "7");
        ex.sendResponseHeaders(202, 2);
        try (OutputStream out = ex.getResponseBody()) {
            out.write("{}".getBytes());
        }
    }

    static StubServer plainReceiver() {
        return StubServer.http().route("/", HookPosterTest::answer);
    }

    static StubServer tlsReceiver(TestPki pki, String... names) {
        return StubServer.https(pki.serverContext(names)).route("/", HookPosterTest::answer);
    }

    static HookPoster poster(OutboundAddresses.Resolver resolver, boolean allowPrivate, Path trustStore) {
        return new HookPoster(vertx, resolver, allowPrivate, CONNECT, READ,
                HookPoster.trust(Optional.ofNullable(trustStore).map(Path::toString)), 4);
    }

    @Test
    void theHookGoesToTheAddressThatWasCheckedAndTheNameIsNeverResolvedAgain() throws Exception {
        StubServer receiver = plainReceiver();
        AtomicInteger lookups = new AtomicInteger();
        // A rebinding name: the first answer is the checked one, every later answer points elsewhere.
        OutboundAddresses.Resolver rebinding = host -> lookups.getAndIncrement() == 0
                ? new InetAddress[]{InetAddress.getByName("127.0.0.1")}
                : new InetAddress[]{InetAddress.getByName("127.0.0.2")};
        try (HookPoster poster = poster(rebinding, true, null)) {
            URI url = URI.create("http://rebind.invalid:" + receiver.port() + "/hooks?x=1");
            InetAddress[] checked = poster.addresses(url);
            DeliveryStore.Outcome a = poster.post(url, checked, Map.of("Content-Type", "application/json"),
                    "{}".getBytes());
            assertEquals(202, a.statusCode());
            assertEquals(Duration.ofSeconds(7), a.retryAfter());
            assertEquals(1, lookups.get(), "the client did not resolve the name again");
            assertEquals("rebind.invalid:" + receiver.port(), HOSTS.get(HOSTS.size() - 1));
        } finally {
            receiver.close();
        }
    }

    @Test
    void whenAnAddressRefusesTheConnectionTheNextCheckedOneIsTried() throws Exception {
        StubServer receiver = plainReceiver(); // on 127.0.0.1 only: 127.0.0.2 refuses the connection
        try (HookPoster poster = poster(host -> new InetAddress[]{InetAddress.getByName("127.0.0.2"),
                InetAddress.getByName("127.0.0.1")}, true, null)) {
            URI url = URI.create("http://two.invalid:" + receiver.port() + "/hooks");
            assertEquals(202, poster.post(url, poster.addresses(url), Map.of(), "{}".getBytes()).statusCode());
            URI onlyRefusing = URI.create("http://two.invalid:" + receiver.port() + "/hooks");
            IOException e = assertThrows(IOException.class, () -> poster.post(onlyRefusing,
                    new InetAddress[]{InetAddress.getByName("127.0.0.2")}, Map.of(), "{}".getBytes()));
            assertTrue(e.getMessage().contains("Connection refused"), e.getMessage());
        } finally {
            receiver.close();
        }
    }

    @Test
    void whenAnAddressNeverOpensTheConnectionTheNextCheckedOneIsTriedWithinTheDeadline() throws Exception {
        StubServer receiver = plainReceiver();
        int port = receiver.port();
        List<Socket> queued = new ArrayList<>();
        // 127.0.0.2 on the receiver's port: a listener whose backlog is full, so every new SYN is dropped
        try (ServerSocket hole = new ServerSocket()) {
            hole.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), port), 1);
            for (boolean full = false; !full;) {
                Socket c = new Socket();
                try {
                    c.connect(hole.getLocalSocketAddress(), 300);
                    queued.add(c);
                } catch (SocketTimeoutException dropped) {
                    c.close();
                    full = true;
                }
            }
            try (HookPoster poster = poster(host -> new InetAddress[]{InetAddress.getByName("127.0.0.2"),
                    InetAddress.getByName("127.0.0.1")}, true, null)) {
                URI url = URI.create("http://two.invalid:" + port + "/hooks");
                long start = System.nanoTime();
                assertEquals(202, poster.post(url, poster.addresses(url), Map.of(), "{}".getBytes()).statusCode());
                long ms = (System.nanoTime() - start) / 1_000_000;
                assertTrue(ms >= CONNECT.toMillis() - 100 && ms < CONNECT.plus(READ).toMillis(),
                        "the second address answered after " + ms + " ms");
            }
        } finally {
            for (Socket c : queued) {
                c.close();
            }
            receiver.close();
        }
    }

    @Test
    void theGuardChecksEveryAddressTheNameResolvesTo() throws Exception {
        try (HookPoster poster = poster(host -> new InetAddress[]{InetAddress.getByName("93.184.216.34"),
                InetAddress.getByName("10.1.2.3")}, false, null)) {
            HookPoster.NotSent e = assertThrows(HookPoster.NotSent.class,
                    () -> poster.addresses(URI.create("https://hooks.example/")));
            assertEquals("refused by the SSRF guard: the host hooks.example resolves to 10.1.2.3, a private address;"
                    + " only public addresses are allowed", e.getMessage());
        }
        try (HookPoster poster = poster(host -> new InetAddress[]{InetAddress.getByName("93.184.216.34")}, false,
                null)) {
            assertEquals("93.184.216.34", poster.addresses(URI.create("https://hooks.example/"))[0].getHostAddress());
        }
        // the documentation and IETF ranges, and the embedded IPv4 forms, are crypto-common's guard's (its tests)
        try (HookPoster poster = poster(host -> new InetAddress[]{InetAddress.getByName("64:ff9b::a9fe:a9fe")}, false,
                null)) {
            assertTrue(assertThrows(HookPoster.NotSent.class, () -> poster.addresses(URI.create("https://n.example/")))
                    .getMessage().contains("an IPv6 form of a link-local address"));
        }
        try (HookPoster poster = poster(host -> new InetAddress[0], false, null)) {
            assertTrue(
                    assertThrows(HookPoster.NotSent.class, () -> poster.addresses(URI.create("http://gone.example/")))
                            .getMessage().contains("does not resolve"));
            assertTrue(assertThrows(HookPoster.NotSent.class, () -> poster.addresses(URI.create("ftp://a.example/x")))
                    .getMessage().contains("not an absolute http(s) URL"));
        }
    }

    @Test
    void httpsKeepsTheUrlsHostForSniAndTheCertificateCheck() throws Exception {
        TestPki pki = TestPki.create();
        Path trust = Files.createTempFile("hook-trust", ".pem");
        Files.writeString(trust, Pem.toPem(pki.root));
        StubServer good = tlsReceiver(pki, "hooks.receiver.test");
        StubServer otherName = tlsReceiver(pki, "someone-else.test");
        OutboundAddresses.Resolver resolver = HookPoster
                .resolver(Optional.of(List.of("hooks.receiver.test=127.0.0.1")));
        try (HookPoster trusting = poster(resolver, true, trust); HookPoster jdkTrust = poster(resolver, true, null)) {
            URI url = URI.create("https://hooks.receiver.test:" + good.port() + "/in");
            assertEquals(202, trusting.post(url, trusting.addresses(url), Map.of(), "{}".getBytes()).statusCode());
            assertEquals("hooks.receiver.test", SNI.get(SNI.size() - 1));
            assertEquals("hooks.receiver.test:" + good.port(), HOSTS.get(HOSTS.size() - 1));

            URI wrongName = URI.create("https://hooks.receiver.test:" + otherName.port() + "/in");
            IOException mismatch = assertThrows(IOException.class,
                    () -> trusting.post(wrongName, trusting.addresses(wrongName), Map.of(), "{}".getBytes()));
            assertTrue(mismatch.getMessage().contains("No subject alternative DNS name matching hooks.receiver.test"),
                    mismatch.getMessage());

            assertThrows(IOException.class,
                    () -> jdkTrust.post(url, jdkTrust.addresses(url), Map.of(), "{}".getBytes()),
                    "a CA that is not in the JDK's trust store is not trusted without the seam");
        } finally {
            good.close();
            otherName.close();
            Files.deleteIfExists(trust);
        }
    }

    /** A native image has no {@code java.home}: the seam takes the JDK's roots as the JVM holds them, plus the file's. */
    @Test
    void theTrustStoreSeamNeedsNoJavaHome() throws Exception {
        TestPki pki = TestPki.create();
        Path trust = Files.createTempFile("hook-trust", ".pem");
        Files.writeString(trust, Pem.toPem(pki.root));
        int jdkRoots = TrustAnchors.jdkDefaults().certificates().size(); // read once, as a native image has them built in
        String javaHome = System.getProperty("java.home");
        io.vertx.core.net.TrustOptions options;
        System.clearProperty("java.home");
        try {
            options = HookPoster.trust(Optional.of(trust.toString()));
        } finally {
            System.setProperty("java.home", javaHome);
            Files.deleteIfExists(trust);
        }
        X509TrustManager manager = (X509TrustManager) options.getTrustManagerFactory(vertx).getTrustManagers()[0];
        List<X509Certificate> issuers = List.of(manager.getAcceptedIssuers());
        assertEquals(jdkRoots + 1, issuers.size(), "the JDK's roots and the file's");
        assertTrue(issuers.contains(pki.root));
    }

    @Test
    void aHostGivenMoreThanOnceToTheResolveSeamResolvesToEachOfItsAddressesInOrder() throws Exception {
        OutboundAddresses.Resolver resolver = HookPoster.resolver(Optional.of(List.of("many.test=127.0.0.3",
                "other.test=127.0.0.9", "MANY.test=127.0.0.2", "many.test=::1")));
        assertEquals(List.of("127.0.0.3", "127.0.0.2", "0:0:0:0:0:0:0:1"),
                java.util.Arrays.stream(resolver.resolve("many.Test")).map(InetAddress::getHostAddress).toList());
        assertEquals(List.of("127.0.0.9"),
                java.util.Arrays.stream(resolver.resolve("other.test")).map(InetAddress::getHostAddress).toList());
    }

    @Test
    void theResolveSeamRefusesWhatIsNotHostEqualsAddress() {
        for (String bad : List.of("hooks.example", "=127.0.0.1", "hooks.example=127.0.0.1:8443", "a=b.example")) {
            assertThrows(IllegalArgumentException.class, () -> HookPoster.resolver(Optional.of(List.of(bad))), bad);
        }
        assertNull(HookPoster.trust(Optional.empty()));
    }
}
