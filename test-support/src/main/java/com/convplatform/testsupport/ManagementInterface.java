package com.convplatform.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * The management interface (health and metrics, on a port of its own) of the service under test, on a free port for
 * each start, so that services tested at once never clash on it. A {@code @QuarkusTest} takes the port as
 * {@code quarkus.management.test-port}; the built artifact of an {@code *IT} suite as {@code quarkus.management.port}
 * (Quarkus 3.33 starts it outside test mode and reads only its HTTP port from its log, so
 * {@code @TestHTTPResource(management = true)} would name port 9001 there). {@link #url} names it in both.
 */
public class ManagementInterface implements QuarkusTestResourceLifecycleManager {
    private static final String PORT = "platform.test.management-port";

    @Override
    public Map<String, String> start() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String port = Integer.toString(s.getLocalPort());
            System.setProperty(PORT, port); // read by the test, whatever class loader it is in
            return Map.of("quarkus.management.test-port", port, "quarkus.management.port", port);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void stop() {
    }

    /** {@code path} (such as "/q/metrics") on the management interface of the service under test. */
    public static String url(String path) {
        return "http://localhost:" + System.getProperty(PORT) + path;
    }

    /**
     * Health and metrics answer on the management interface only: on the public port ({@code publicPort}) they are
     * 404 in the services' error shape, while the OpenAPI document stays there (and is not on the management port).
     */
    public static void assertOnlyThere(int publicPort) throws IOException, InterruptedException {
        HttpClient client = HttpClient.newHttpClient();
        for (String path : new String[]{"/q/metrics", "/q/health", "/q/health/ready", "/q/health/live"}) {
            HttpResponse<String> r = get(client, "http://localhost:" + publicPort + path);
            assertEquals(404, r.statusCode(), path + ": " + r.body());
            assertTrue(r.body().matches("(?s)\\{\"error_code\":\"NOT_FOUND\",\"error_message\":\"[^\"]+\"}"),
                    path + ": " + r.body());
            assertEquals(200, get(client, url(path)).statusCode(), path + " on the management interface");
        }
        assertTrue(get(client, url("/q/metrics")).body().contains("jvm_memory_used_bytes"));
        assertEquals(200, get(client, "http://localhost:" + publicPort + "/q/openapi").statusCode());
        assertEquals(404, get(client, url("/q/openapi")).statusCode());
    }

    private static HttpResponse<String> get(HttpClient client, String url) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
