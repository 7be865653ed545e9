package com.convplatform.console;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.convplatform.testsupport.StubServer;

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
            + "\"created_at\":\"2026-11-26T10:00:00Z\",\"require_sha256\":false,"
            + "\"disabled_at\":\"2026-11-29T10:00:00Z\"}";

    /** A client, disabled when {@code disabled} is a time. */
    static String client(String id, String disabled) {
        return "{\"client_id\":\"" + id + "\",\"name\":\"bot-" + id + "\",\"created_at\":\"2026-11-26T10:00:00Z\""
                + (disabled == null ? "" : ",\"disabled_at\":\"" + disabled + "\"") + "}";
    }

    public static class TwoRows implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("console.page-size", "2");
        }
    }

    /** Every call the stand-in received: service, method, path, query and the X-Operator header. */
    static final List<String> CALLS = new java.util.concurrent.CopyOnWriteArrayList<>();

    public static class Services implements QuarkusTestResourceLifecycleManager {
        private StubServer server;

        @Override
        public Map<String, String> start() {
            server = StubServer.http().route("/", exchange -> {
                // Each service under a prefix of its own (/management, /hook, /upload), so that the audit page's three
                // calls can be told apart.
                String full = exchange.getRequestURI().getPath();
                String service = full.substring(1, full.indexOf('/', 1));
                String path = full.substring(service.length() + 1);
                String query = String.valueOf(exchange.getRequestURI().getQuery());
                CALLS.add(service + " " + exchange.getRequestMethod() + " " + path + "?" + query + " X-Operator="
                        + exchange.getRequestHeaders().getFirst("X-Operator"));
                String body = switch (path) {
                    case "/admin/v1/audit" -> audit(service, query);
                    case "/admin/v1/accounts" -> "[" + ACCOUNT + "]";
                    case "/admin/v1/accounts/a1", "/admin/v1/accounts/a1/enable" -> ACCOUNT;
                    case "/admin/v1/accounts/a1/clients" -> "[" + client("c1", null) + ","
                            + client("c2", "2026-11-29T10:00:00Z") + "]";
                    case "/admin/v1/accounts/a1/clients/c1/disable" -> client("c1", "2026-11-29T11:00:00Z");
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
            String url = server.url();
            return Map.of("console.management.url", url + "/management", "console.hook.url", url + "/hook",
                    "console.upload.url", url + "/upload");
        }

        /**
         * Three actions recorded by each service, ids 1 to 3, interleaved in time: management at 10:00, 10:03, 10:06,
         * hook a minute later, upload two: newest first upload 3, hook 3, management 3, upload 2 and so on. Honours
         * before_id and limit as the services do.
         */
        private static String audit(String service, String query) {
            Map<String, String> q = new java.util.HashMap<>();
            for (String p : query.split("&")) {
                int eq = p.indexOf('=');
                if (eq > 0) {
                    q.put(p.substring(0, eq), p.substring(eq + 1));
                }
            }
            int offset = List.of("management", "hook", "upload").indexOf(service);
            long before = q.containsKey("before_id") ? Long.parseLong(q.get("before_id")) : Long.MAX_VALUE;
            int limit = Integer.parseInt(q.getOrDefault("limit", "100"));
            List<String> rows = new java.util.ArrayList<>();
            for (int id = 3; id >= 1 && rows.size() < limit; id--) {
                if (id < before) {
                    String at = String.format("2026-11-26T10:%02d:00Z", (id - 1) * 3 + offset);
                    rows.add("{\"id\":" + id + ",\"at\":\"" + at + "\",\"credential\":\"operator-key\","
                            + "\"operator\":\"alice\",\"method\":\"POST\",\"path\":\"/admin/v1/x/" + id + "\","
                            + "\"action\":\"POST /admin/v1/x/{id}\",\"target\":\"id=" + service + id + "\","
                            + "\"request_id\":\"r\",\"source\":\"127.0.0.1\",\"finished_at\":\"" + at + "\","
                            + "\"status\":" + (id == 2 ? 409 : 200) + ",\"outcome\":\"" + (id == 2 ? "CONFLICT" : "ok")
                            + "\"}");
                }
            }
            return "[" + String.join(",", rows) + "]";
        }

        private static String delivery(String id) {
            return "{\"delivery_id\":\"" + id + "\",\"event_id\":\"e-" + id + "\",\"account_id\":\"a1\",\"status\":"
                    + "\"DEAD\",\"attempts\":8,\"created_at\":\"2026-11-26T10:00:00.123456Z\"}";
        }

        @Override
        public void stop() {
            server.close();
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

    /** Every call the console makes for a page names the signed-in operator in X-Operator, the same in each service. */
    @Test
    void everyCallNamesTheSignedInOperator() {
        String session = ConsoleSecurityTest.signIn("bob");
        CALLS.clear();
        given().cookie("quarkus-credential", session).queryParam("operator", "mallory").get("/accounts/a1").then()
                .statusCode(200);
        given().cookie("quarkus-credential", session).get("/").then().statusCode(200);
        assertTrue(CALLS.size() >= 8, CALLS.toString());
        for (String call : CALLS) {
            assertTrue(call.endsWith(" X-Operator=bob"), call);
        }
        assertTrue(CALLS.stream().anyMatch(c -> c.startsWith("management ")), CALLS.toString());
        assertTrue(CALLS.stream().anyMatch(c -> c.startsWith("hook ")), CALLS.toString());
        assertTrue(CALLS.stream().anyMatch(c -> c.startsWith("upload ")), CALLS.toString());
    }

    /**
     * An account and its clients, disabled in red with a button to enable them, enabled with a link to disable them
     * (after a confirmation page); each action a POST with the session's CSRF token, passed to management-service with
     * X-Operator and logged. management-service's refusal is shown with its status; a post without the token is
     * refused before any service is called.
     */
    @Test
    void accountsAndClientsAreDisabledAndEnabledAndRefusalsShown() {
        String session = ConsoleSecurityTest.signIn("alice");
        String page = given().cookie("quarkus-credential", session).get("/accounts/a1").then().statusCode(200)
                .extract().asString();
        assertTrue(page.contains("<p id=\"account-state\" class=\"state bad\">Disabled since 2026-11-29 10:00:00Z"),
                page);
        assertTrue(page.contains("action=\"/accounts/a1/enable\""), page);
        String disabled = row(page, "client-c2");
        assertTrue(disabled.contains("<span class=\"badge bad\">disabled 2026-11-29 10:00:00Z</span>")
                && disabled.contains("action=\"/accounts/a1/clients/c2/enable\""), disabled);
        String enabled = row(page, "client-c1");
        assertTrue(enabled.contains("<span class=\"badge ok\">enabled</span>")
                && enabled.contains("href=\"/accounts/a1/clients/c1/disable\""), enabled);
        given().cookie("quarkus-credential", session).get("/accounts").then().statusCode(200)
                .body(containsString("acme.example</a> <span class=\"badge bad\">disabled</span>"));
        given().cookie("quarkus-credential", session).get("/accounts/a1/clients/c1/disable").then().statusCode(200)
                .body(containsString("Disable client c1? It gets no token from now on"))
                .body(containsString("action=\"/accounts/a1/clients/c1/disable\""));
        given().cookie("quarkus-credential", session).get("/accounts/a1/disable").then().statusCode(200)
                .body(containsString("Disable acme.example? It gets no token and no client list from now on"));

        CALLS.clear();
        List<String> lines = ConsoleSecurityTest.audited(() -> {
            ConsoleSecurityTest.act(session, "/accounts/a1/clients/c1/disable", Map.of()).then().statusCode(303)
                    .header("Location", endsWith("/accounts/a1?notice=client-disabled"));
            ConsoleSecurityTest.act(session, "/accounts/a1/enable", Map.of()).then().statusCode(303)
                    .header("Location", endsWith("/accounts/a1?notice=account-enabled"));
            ConsoleSecurityTest.act(session, "/accounts/a1/clients/c9/enable", Map.of()).then().statusCode(404)
                    .body(containsString("management-service refused: NOT_FOUND: no"));
        });
        for (String call : new String[]{"/accounts/a1/clients/c1/disable", "/accounts/a1/enable",
                "/accounts/a1/clients/c9/enable"}) {
            assertTrue(CALLS.contains("management POST /admin/v1" + call + "?null X-Operator=alice"), CALLS.toString());
        }
        assertTrue(lines.contains("operator=alice action=disable-client target=a1/c1 outcome=disabled"), lines + "");
        assertTrue(lines.contains("operator=alice action=enable-account target=a1 outcome=enabled"), lines + "");
        assertTrue(lines.contains("operator=alice action=enable-client target=a1/c9 outcome=management-service"
                + " refused: NOT_FOUND: no"), lines + "");
        given().cookie("quarkus-credential", session).get("/accounts/a1?notice=client-disabled").then()
                .body(containsString("The client is disabled: no token for it, its tokens refused."));

        CALLS.clear();
        given().cookie("quarkus-credential", session).redirects().follow(false).post("/accounts/a1/disable").then()
                .statusCode(403).body(containsString("id=\"csrf-refused\""));
        assertTrue(CALLS.isEmpty(), CALLS.toString());
    }

    /** The HTML of the table row with this id, tags and all. */
    private static String row(String page, String id) {
        int start = page.indexOf("<tr id=\"" + id + "\">");
        assertTrue(start >= 0, id + " in " + page);
        return page.substring(start, page.indexOf("</tr>", start));
    }

    /** The audit page merges the three services' trails newest first, and pages through all of them, each once. */
    @Test
    void theAuditPageMergesTheThreeTrailsNewestFirstAndPagesThroughThem() {
        String session = ConsoleSecurityTest.signIn("alice");
        List<String> seen = new java.util.ArrayList<>();
        String next = "/audit";
        int pages = 0;
        while (next != null) {
            io.restassured.response.Response page = given().cookie("quarkus-credential", session).get(next);
            page.then().statusCode(200).body(not(containsString("role=\"alert\"")));
            List<String> rows = page.htmlPath().getList("**.findAll { it.name() == 'tr' && it.@id != '' }.@id");
            assertTrue(rows.size() <= 2, "page size 2: " + rows);
            seen.addAll(rows);
            java.util.regex.Matcher older = java.util.regex.Pattern.compile("href=\"([^\"]*)\" id=\"audit-older\"")
                    .matcher(page.asString());
            next = older.find() ? older.group(1).replace("&amp;", "&") : null;
            assertTrue(++pages < 10, "pages: " + seen);
        }
        assertEquals(List.of("audit-upload-service-3", "audit-hook-service-3", "audit-management-service-3",
                "audit-upload-service-2", "audit-hook-service-2", "audit-management-service-2",
                "audit-upload-service-1", "audit-hook-service-1", "audit-management-service-1"), seen);
        // who, what, target, when, outcome, service
        String first = row(given().cookie("quarkus-credential", session).get("/audit").asString(),
                "audit-upload-service-3");
        for (String part : new String[]{"<td>2026-11-26 10:08:00Z</td><td>upload-service</td>", "<td>alice<br>",
                "operator-key, from 127.0.0.1", "POST /admin/v1/x/{id}", "id=upload3",
                "<span class=\"badge ok\">ok 200</span>"}) {
            assertTrue(first.contains(part), part + " in " + first);
        }
        String third = row(given().cookie("quarkus-credential", session).get("/audit?hook_before=3&upload_before=3")
                .asString(), "audit-management-service-3");
        assertTrue(third.contains("<td>management-service</td>") && third.contains("ok 200"), third);
        // a refused action: its error code and status, in the red badge
        io.restassured.response.Response second = given().cookie("quarkus-credential", session)
                .get("/audit?management_before=3&hook_before=3&upload_before=3");
        assertTrue(row(second.asString(), "audit-upload-service-2").contains("CONFLICT 409"), second.asString());
        assertTrue(second.asString().contains("<span class=\"badge bad\">CONFLICT 409</span>"), second.asString());

        // The operator filter is passed to each service; a name the services would never record is refused here.
        CALLS.clear();
        given().cookie("quarkus-credential", session).queryParam("operator", "alice").get("/audit").then()
                .statusCode(200);
        assertEquals(3, CALLS.stream().filter(c -> c.contains("/admin/v1/audit?") && c.contains("operator=alice"))
                .count(), CALLS.toString());
        CALLS.clear();
        given().cookie("quarkus-credential", session).queryParam("operator", "a b<").get("/audit").then()
                .statusCode(200).body(containsString("id=\"audit-problem\"")).body(not(containsString("a b<")));
        assertTrue(CALLS.stream().noneMatch(c -> c.contains("/admin/v1/audit")), CALLS.toString());
    }
}
