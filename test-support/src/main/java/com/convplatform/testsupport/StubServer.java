package com.convplatform.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import javax.net.ssl.SSLContext;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;

/**
 * A stand-in for another service or a webhook receiver in a test: the JDK's HTTP server on 127.0.0.1, started at once,
 * one handler per path prefix ({@link #route}, also while it runs), each exchange on a thread of its own.
 */
public final class StubServer implements AutoCloseable {
    private final HttpServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final String scheme;

    private StubServer(HttpServer server, String scheme) {
        this.server = server;
        this.scheme = scheme;
        server.setExecutor(threads);
        server.start();
    }

    /** Plain HTTP on a free port. */
    public static StubServer http() {
        return http(0);
    }

    /** Plain HTTP on {@code port} (0: a free one). */
    public static StubServer http(int port) {
        try {
            return new StubServer(HttpServer.create(new InetSocketAddress("127.0.0.1", port), 64), "http");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot listen on 127.0.0.1:" + port, e);
        }
    }

    /** HTTPS on a free port, presenting the certificate of {@code tls}. */
    public static StubServer https(SSLContext tls) {
        try {
            HttpsServer s = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
            s.setHttpsConfigurator(new HttpsConfigurator(tls));
            return new StubServer(s, "https");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot listen on 127.0.0.1", e);
        }
    }

    /** Hands the requests whose path starts with {@code pathPrefix} to {@code handler}. */
    public StubServer route(String pathPrefix, HttpHandler handler) {
        server.createContext(pathPrefix, handler);
        return this;
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** {@code http://127.0.0.1:port} (or https), without a trailing slash. */
    public String url() {
        return scheme + "://127.0.0.1:" + port();
    }

    /** Stops at once: exchanges still running are cut off. */
    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
