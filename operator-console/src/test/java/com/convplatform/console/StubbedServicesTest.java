package com.convplatform.console;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.sun.net.httpserver.HttpServer;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * The pages over services that answer, played by one stand-in on loopback: what a service returns is escaped in the
 * page, and the deliveries' "Older" link carries the last row's id as well as its time.
 */
@QuarkusTest
@TestProfile(StubbedServicesTest.TwoRows.class)
@QuarkusTestResource(value = StubbedServicesTest.Services.class, restrictToAnnotatedClass = true)
class StubbedServicesTest {
    static final String ACCOUNT = "{\"account_id\":\"a1\",\"name\":\"<script>alert(1)</script>\",\"fqdn\":"
            + "\"acme.example\",\"business_id\":\"42\",\"webhook_url\":\"https://acme.example/h\","
            + "\"created_at\":\"2026-11-26T10:00:00Z\",\"require_sha256\":false}";

    public static class TwoRows implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("console.page-size", "2");
        }
    }

    public static class Services implements QuarkusTestResourceLifecycleManager {
        private HttpServer server;

        @Override
        public Map<String, String> start() {
            try {
                server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            server.createContext("/", exchange -> {
                String path = exchange.getRequestURI().getPath();
                String query = String.valueOf(exchange.getRequestURI().getQuery());
                String body = switch (path) {
                    case "/admin/v1/accounts" -> "[" + ACCOUNT + "]";
                    // message 13: hook-service fails; message 14: it never received it
                    case "/admin/v1/deliveries" -> query.contains("message_id=13")
                            ? null
                            : query.contains("message_id=14")
                                    ? "[]"
                                    : "[" + delivery("d3") + "," + delivery("d2") + "," + delivery("d1")
                                            + "]"; // one intake batch: one created_at
                    default -> null;
                };
                byte[] bytes = (body == null ? "{\"error_code\":\"NOT_FOUND\",\"error_message\":\"no\"}" : body)
                        .getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().add("Content-Type", "application/json");
                exchange.sendResponseHeaders(body == null ? (query.contains("message_id=13") ? 503 : 404) : 200,
                        bytes.length);
                exchange.getResponseBody().write(bytes);
                exchange.close();
            });
            server.start();
            String url = "http://127.0.0.1:" + server.getAddress().getPort();
            return Map.of("console.management.url", url, "console.hook.url", url, "console.upload.url", url);
        }

        private static String delivery(String id) {
            return "{\"delivery_id\":\"" + id + "\",\"event_id\":\"e-" + id + "\",\"account_id\":\"a1\",\"status\":"
                    + "\"DEAD\",\"attempts\":8,\"created_at\":\"2026-11-26T10:00:00.123456Z\"}";
        }

        @Override
        public void stop() {
            server.stop(0);
        }
    }

    @Test
    void whatAServiceReturnsIsEscapedInThePage() {
        given().cookie("quarkus-credential", ConsoleSecurityTest.signIn("alice")).get("/accounts").then()
                .statusCode(200)
                .body(containsString("&lt;script&gt;alert(1)&lt;/script&gt;")).body(not(containsString("<script>")));
    }

    /**
     * "hook-service never received that event" only when hook-service answered with no delivery; when it failed, the
     * page says so instead.
     */
    @Test
    void aMessageIsSaidNeverReceivedOnlyWhenHookServiceSaysSo() {
        String session = ConsoleSecurityTest.signIn("alice");
        given().cookie("quarkus-credential", session).queryParam("account", "acme.example")
                .queryParam("message_id", "13").get("/deliveries").then().statusCode(200)
                .body(containsString("hook-service refused: NOT_FOUND: no"))
                .body(not(containsString("never received"))).body(not(containsString("id=\"none\"")));
        given().cookie("quarkus-credential", session).queryParam("account", "acme.example")
                .queryParam("message_id", "14").get("/deliveries").then().statusCode(200)
                .body(containsString("No delivery of message 14 for this account: hook-service never received that"
                        + " event."));
    }

    @Test
    void theOlderLinkCarriesTheLastRowsIdAsWellAsItsTime() {
        given().cookie("quarkus-credential", ConsoleSecurityTest.signIn("alice")).get("/deliveries").then()
                .statusCode(200)
                .body(containsString("before=2026-11-26T10%3A00%3A00.123456Z&amp;before_id=d2"));
    }
}
