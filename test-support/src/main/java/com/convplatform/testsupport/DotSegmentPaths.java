package com.convplatform.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/**
 * Sends paths with dot segments exactly as written (percent-encoded or not, never normalised by the client) and checks
 * that the service refuses each with 400 INVALID_PATH, whatever the path would have reached once resolved: the OpenAPI
 * document, which the public port still serves, and health and metrics, which it no longer does (they are on the
 * management interface) but would again if that were switched off.
 */
public final class DotSegmentPaths {
    private DotSegmentPaths() {
    }

    /** {@code prefix} is a path of the service, such as "/platform/management" or "/admin/v1". */
    public static void assertRefused(int port, String prefix) throws IOException, InterruptedException {
        HttpClient client = HttpClient.newHttpClient();
        for (String path : new String[]{prefix + "/%2e%2e/%2e%2e/q/metrics", prefix + "/%2E%2E/%2e%2E/q/health",
                prefix + "/%2e%2e/%2e%2e/q/openapi",
                prefix + "/../../q/metrics", prefix + "/./x", prefix + "/.%2e/q/openapi", "/q/%2e%2e/q/metrics"}) {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .GET().build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(400, r.statusCode(), path + ": " + r.body());
            assertTrue(r.body().contains("\"error_code\":\"INVALID_PATH\""), path + ": " + r.body());
        }
    }
}
