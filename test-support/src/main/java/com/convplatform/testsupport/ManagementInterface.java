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
import java.util.regex.Pattern;

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
     * The sum of the samples of {@code name} on the service's metrics page whose labels match {@code labels} (a regular
     * expression found in the label set; "" for every sample); 0 when there is none. Exemplars are left out.
     */
    public static double metric(String name, String labels) {
        Pattern matching = Pattern.compile(labels);
        try {
            return get(HttpClient.newHttpClient(), url("/q/metrics")).body().lines()
                    .filter(l -> l.startsWith(name + "{") || l.startsWith(name + " "))
                    .map(l -> l.contains(" # ") ? l.substring(0, l.indexOf(" # ")) : l)
                    .filter(l -> matching.matcher(l.substring(name.length(), l.lastIndexOf(' '))).find())
                    .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * The 5xx answers counted so far, every route: a test that must cause none compares this before and after, since
     * other tests of the same application may answer 5xx on purpose.
     */
    public static double serverErrors() {
        return metric("http_server_requests_seconds_count", "status=\"5\\d\\d\"");
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
