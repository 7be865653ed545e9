package com.convplatform.crypto.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import javax.net.ssl.SSLContext;

import com.convplatform.testsupport.StubServer;
import com.sun.net.httpserver.HttpExchange;

/**
 * An HTTPS server on 127.0.0.1 and a free port, for tests that download certificates. Point a host at it with
 * {@link #override(String)} (the {@code host=address:port} seam) and trust the {@link TestPki} that made its
 * certificate.
 */
public final class HttpsTestServer implements AutoCloseable {
    /** What to answer for a path. */
    public record Response(int status, String contentType, byte[] body, Map<String, String> headers) {
    }

    private final StubServer server;
    private final Map<String, Response> responses = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> hits = new ConcurrentHashMap<>();

    private HttpsTestServer(SSLContext tls) {
        this.server = StubServer.https(tls).route("/", this::handle);
    }

    /** Starts a server presenting a certificate from {@code pki} for {@code hostNames}. */
    public static HttpsTestServer start(TestPki pki, String... hostNames) {
        return start(pki.serverContext(hostNames));
    }

    /** Starts a server with the given TLS context. */
    public static HttpsTestServer start(SSLContext tls) {
        return new HttpsTestServer(tls);
    }

    /** Serves {@code body} with status 200 at {@code path}. */
    public HttpsTestServer serve(String path, String contentType, byte[] body) {
        return respond(path, new Response(200, contentType, body, Map.of()));
    }

    /** Serves a text body with status 200 at {@code path}. */
    public HttpsTestServer serve(String path, String contentType, String body) {
        return serve(path, contentType, body.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** Answers {@code path} with an arbitrary response. */
    public HttpsTestServer respond(String path, Response response) {
        responses.put(path, response);
        return this;
    }

    /** How many requests reached {@code path}. */
    public int hits(String path) {
        AtomicInteger n = hits.get(path);
        return n == null ? 0 : n.get();
    }

    public int port() {
        return server.port();
    }

    /** The {@code host=127.0.0.1:port} entry that sends {@code host} to this server. */
    public String override(String host) {
        return host + "=127.0.0.1:" + port();
    }

    /** Overrides for several hosts. */
    public List<String> overrides(String... hosts) {
        return java.util.Arrays.stream(hosts).map(this::override).toList();
    }

    private void handle(HttpExchange ex) throws IOException {
        String path = ex.getRequestURI().getRawPath();
        hits.computeIfAbsent(path, k -> new AtomicInteger()).incrementAndGet();
        Response r = responses.get(path);
        if (r == null) {
            r = new Response(404, "text/plain", "not found".getBytes(), Map.of());
        }
        ex.getResponseHeaders().set("Content-Type", r.contentType());
        r.headers().forEach((k, v) -> ex.getResponseHeaders().set(k, v));
        ex.sendResponseHeaders(r.status(), r.body().length == 0 ? -1 : r.body().length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(r.body());
        }
    }

    @Override
    public void close() {
        server.close();
    }
}
