package com.convplatform.management;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.crypto.testing.HttpsTestServer;
import com.convplatform.crypto.testing.TestPki;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * The external client's side for the tests: a CA (root + intermediate), RSA and EC signing certificates for
 * {@value #FQDN}, and an HTTPS server on loopback serving their chains under /client.api/. The service is pointed at
 * it with the documented seams (resolve, trust-store, trust-anchors), which are off by default.
 */
public class ClientPkiResource implements QuarkusTestResourceLifecycleManager {
    public static final String FQDN = "client.example.com";
    public static TestPki pki;
    public static TestPki.Leaf rsaLeaf;
    public static TestPki.Leaf ecLeaf;
    public static TestPki.Leaf otherHostLeaf;
    public static TestPki.Leaf expiredLeaf;
    public static TestPki.Leaf weakLeaf;
    public static HttpsTestServer server;
    /** A host whose server accepts connections and never says a word: each download from it runs to its deadline. */
    public static final String SILENT_FQDN = "silent.example.com";
    private static java.net.ServerSocket silent;
    private static final java.util.List<java.net.Socket> held = new java.util.concurrent.CopyOnWriteArrayList<>();

    /**
     * Connections the silent server has accepted so far: each one it holds open, silent, until
     * {@link #releaseSilentConnections()} (or the end of the tests).
     */
    public static int silentConnections() {
        return held.size();
    }

    /**
     * Closes the connections the silent server holds so far (their downloads then fail at once), as a test's latch: a
     * test that must not depend on the service's download deadline sets that deadline long and releases its hanging
     * downloads here, in {@code finally}. Later connections are held again.
     */
    public static void releaseSilentConnections() {
        for (java.net.Socket s : held) {
            try {
                s.close();
            } catch (java.io.IOException ignored) {
                // closing is all we want
            }
        }
    }

    @Override
    public Map<String, String> start() {
        pki = TestPki.create();
        rsaLeaf = pki.leaf(KeyPairs.rsa(), FQDN);
        ecLeaf = pki.leaf(KeyPairs.ecP256(), FQDN);
        otherHostLeaf = pki.leaf(KeyPairs.ecP256(), "other.example.com");
        expiredLeaf = pki.leaf(KeyPairs.ecP256(), java.time.Instant.now().minus(java.time.Duration.ofDays(30)),
                java.time.Instant.now().minus(java.time.Duration.ofDays(1)), FQDN);
        weakLeaf = pki.leaf(KeyPairs.rsa(1024), FQDN);
        server = HttpsTestServer.start(pki, FQDN);
        server.serve("/client.api/expired.pem", "application/x-pem-file", Pem.toPem(expiredLeaf.chain()));
        server.serve("/client.api/weak.pem", "application/x-pem-file", Pem.toPem(weakLeaf.chain()));
        server.serve("/client.api/rsa.pem", "application/x-pem-file", Pem.toPem(rsaLeaf.chain()));
        server.serve("/client.api/ec.pem", "application/x-pem-file", Pem.toPem(ecLeaf.chain()));
        server.serve("/client.api/wrong-san.pem", "application/x-pem-file", Pem.toPem(otherHostLeaf.chain()));
        server.serve("/client.api/leaf-only.pem", "application/x-pem-file", Pem.toPem(ecLeaf.cert()));
        server.serve("/client.api/junk.pem", "application/x-pem-file", "not a certificate");
        try {
            Path root = Files.createTempFile("client-root", ".pem");
            Files.writeString(root, Pem.toPem(pki.root));
            root.toFile().deleteOnExit();
            silent = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
            Thread accept = new Thread(() -> {
                while (!silent.isClosed()) {
                    try {
                        held.add(silent.accept());
                    } catch (java.io.IOException closed) {
                        return;
                    }
                }
            }, "silent-chain-server");
            accept.setDaemon(true);
            accept.start();
            return Map.of("management.cert-fetch.resolve",
                    server.override(FQDN) + "," + SILENT_FQDN + "=127.0.0.1:" + silent.getLocalPort(),
                    "management.cert-fetch.trust-store", root.toString(),
                    "management.trust-anchors", root.toString());
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void stop() {
        if (server != null) {
            server.close();
        }
        try {
            if (silent != null) {
                silent.close();
            }
            for (java.net.Socket s : held) {
                s.close();
            }
        } catch (java.io.IOException ignored) {
            // closing is all we want
        }
    }
}
