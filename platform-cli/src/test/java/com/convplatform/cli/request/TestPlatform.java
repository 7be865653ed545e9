package com.convplatform.cli.request;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.fetch.CertificateFetcher;
import com.convplatform.crypto.fetch.HostOverrides;
import com.convplatform.crypto.json.JsonFields;
import com.convplatform.crypto.management.ManagementHeaders;
import com.convplatform.crypto.management.ManagementRequestVerifier;
import com.convplatform.crypto.testing.TestPki;
import com.convplatform.testsupport.StubServer;
import com.sun.net.httpserver.HttpExchange;

/**
 * A stand-in for the management service on 127.0.0.1: it verifies each signed request with crypto-common's
 * {@link ManagementRequestVerifier} (chains downloaded through a host override, trusted to the test PKI; registered
 * self-signed certificates by UUID) and answers a canned 200, or 400 with the failure code. Extra paths answer 500
 * ({@code /fail/...}), a redirect ({@code /moved/...}) or slowly ({@code /slow/...}); under {@code /uniform/} it
 * refuses as management-service does (NOT_AUTHENTICATED for every failure that needs the account's data).
 */
final class TestPlatform implements AutoCloseable {
    /**
     * One request as received.
     *
     * @param path the request path
     * @param body the exact body bytes
     * @param headers request headers (names as received)
     */
    record Received(String path, byte[] body, Map<String, List<String>> headers) {
        String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .map(e -> e.getValue().get(0)).findFirst().orElse(null);
        }

        String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private final StubServer server;
    private final ManagementRequestVerifier verifier;
    private final Map<String, X509Certificate> registered = new ConcurrentHashMap<>();
    final List<Received> received = new CopyOnWriteArrayList<>();

    TestPlatform(TestPki pki, List<String> chainHostOverrides) throws IOException {
        CertificateFetcher fetcher = new CertificateFetcher(pki.clientContext(), Duration.ofSeconds(2),
                Duration.ofSeconds(5), CertificateFetcher.DEFAULT_MAX_BYTES, HostOverrides.parse(chainHostOverrides));
        this.verifier = ManagementRequestVerifier.builder().trustAnchors(pki.anchors()).fetcher(fetcher).build();
        this.server = StubServer.http().route("/platform/management/", this::signed)
                .route("/gateway/platform/management/", this::signed)
                .route("/uniform/platform/management/", this::signed)
                .route("/fail/", ex -> answer(ex, 500, "{\"error_code\":\"INTERNAL\"}"));
        server.route("/moved/", ex -> {
            ex.getResponseHeaders().set("Location", "https://elsewhere.example/platform/management/clients/");
            answer(ex, 302, "");
        });
        server.route("/slow/", ex -> {
            try {
                Thread.sleep(3000); // a slow platform: it answers 3 s late (slowPlatformIsExitCodeThree gives up at 1 s)
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            answer(ex, 200, "{}");
        });
    }

    /** Registers a self-signed certificate under {@code uuid}, as the operator API would. */
    void register(String uuid, X509Certificate cert) {
        registered.put(uuid, cert);
    }

    String baseUrl() {
        return server.url();
    }

    Received last() {
        return received.get(received.size() - 1);
    }

    private void signed(HttpExchange ex) throws IOException {
        byte[] body = ex.getRequestBody().readAllBytes();
        Received r = new Received(ex.getRequestURI().getPath(), body, Map.copyOf(ex.getRequestHeaders()));
        received.add(r);
        String path = r.path().replaceFirst("^/(gateway|uniform)", "");
        boolean token = path.equals("/platform/management/token/issue/");
        if (!token && !path.equals("/platform/management/clients/")) {
            answer(ex, 404, "{\"error_code\":\"NOT_FOUND\",\"error_message\":\"no such endpoint\"}");
            return;
        }
        try {
            String fqdn = JsonFields.topLevelString(body, "fqdn").orElseThrow();
            String timestamp = JsonFields.topLevelString(body, "timestamp").orElse(null);
            verifier.verify(new ManagementRequestVerifier.Request(body, fqdn, timestamp,
                    r.header(ManagementHeaders.SIGNATURE), r.header(ManagementHeaders.CERT_CHAIN_URL),
                    r.header(ManagementHeaders.CERT_UUID), r.header(ManagementHeaders.SIGNATURE_256)),
                    uuid -> Optional.ofNullable(registered.get(uuid)));
            if (token) {
                String clientId = JsonFields.topLevelString(body, "client_id").orElseThrow();
                answer(ex, 200, "{\"access_token\":\"token-for-" + clientId
                        + "\",\"token_type\":\"Bearer\",\"expires_in\":3600,\"client_id\":\"" + clientId + "\"}");
            } else {
                answer(ex, 200, "{\"clients\":[{\"client_id\":\"c-1\",\"name\":\"web\"}]}");
            }
        } catch (VerificationException e) {
            // under /uniform as management-service answers: the checks of the request alone say their code, every
            // other failure is one refusal (its reason only in the service's log, by the request id)
            if (r.path().startsWith("/uniform/") && !e.code().name().matches("CERT_HEADERS|CERT_URL_.*|TIMESTAMP_.*")) {
                ex.getResponseHeaders().set("X-Request-Id", "req-" + received.size());
                answer(ex, 400, "{\"error_code\":\"NOT_AUTHENTICATED\",\"error_message\":\"The request could not be"
                        + " authenticated\"}");
                return;
            }
            answer(ex, 400, "{\"error_code\":\"" + e.code() + "\",\"error_message\":\""
                    + e.getMessage().replace("\\", "\\\\").replace("\"", "\\\"") + "\"}");
        }
    }

    private static void answer(HttpExchange ex, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.close();
    }
}
