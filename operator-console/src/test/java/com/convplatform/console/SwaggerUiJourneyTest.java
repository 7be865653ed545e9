package com.convplatform.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

import com.convplatform.crypto.management.ManagementRequestSigner;
import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pki.CertificateBuilder;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.testsupport.OpenApiDocument;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Swagger UI of each of the three services (their built jars, as {@link BrowserJourneyTest} runs them), used as a person
 * new to the platform uses it (issue 40): open it, authorize, and "Try it out" on every operation of the service's
 * OpenAPI document (read from the running service), filling in only the fields a person fills in, with the ids of
 * objects tried before (an account, a client, a registered certificate, a delivery, an upload user, a message, an
 * erasure), and get the success status the document lists. What disables or removes comes after what needs its
 * target. The signed management API gets a body signed outside the browser with SignatureCertUUID (as platform-cli
 * sign does), the internal APIs the internal key (Authorize again). Each test ends by naming every operation of the
 * document it did not try: a new operation cannot be added without being tried here. Every wait is for a state of the
 * page or of the platform. Screenshots in target/screenshots/swagger-*.png. Tagged "browser", as the console's
 * journey.
 */
@QuarkusTest
@QuarkusTestResource(value = Platform.class, restrictToAnnotatedClass = true)
@Tag("browser")
@EnabledIf(value = "chromiumPresent", disabledReason = "no /usr/bin/chromium and /usr/bin/chromedriver on this"
        + " machine (apt-get install -y chromium chromium-driver): the browser test is skipped")
class SwaggerUiJourneyTest {
    static final Path SHOTS = Path.of("target", "screenshots");
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final Duration PATIENCE = Duration.ofSeconds(60);
    static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "patch", "head", "options");
    static WebDriver browser;

    static boolean chromiumPresent() {
        return HeadlessChromium.present();
    }

    @BeforeAll
    static void openBrowser() throws IOException {
        Files.createDirectories(SHOTS);
        browser = HeadlessChromium.open("chromium-swagger-");
    }

    @AfterAll
    static void closeBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    @Test
    void managementServiceEveryOperation() throws Exception {
        Tries tries = new Tries(Platform.managementPort);
        authorize(Platform.OPERATOR_KEY);
        JsonNode account = tries.run("post", "/admin/v1/accounts", 201, op -> body(op, "{\"name\":\"Swagger Shop\","
                + "\"fqdn\":\"swagger.example\",\"business_id\":\"5151\",\"webhook_url\":\"http://127.0.0.1:"
                + Platform.receiverPort + "/hooks/swagger\"}"));
        assertEquals("swagger.example", account.path("fqdn").asText());
        shot("swagger-management-account");
        String accountId = account.path("account_id").asText();
        Map<String, String> ids = Map.of("accountId", accountId);
        tries.run("get", "/admin/v1/accounts", 200, op -> {
        });
        tries.run("get", "/admin/v1/accounts/{accountId}", 200, op -> parameters(op, ids));
        String settings = "{\"require_sha256\":false}";
        tries.run("patch", "/admin/v1/accounts/{accountId}", 200, op -> {
            parameters(op, ids);
            body(op, settings);
        });
        tries.run("put", "/admin/v1/accounts/{accountId}", 200, op -> {
            parameters(op, ids);
            body(op, settings);
        });
        String clientId = tries.run("post", "/admin/v1/accounts/{accountId}/clients", 201, op -> {
            parameters(op, ids);
            body(op, "{\"name\":\"swagger\"}");
        }).path("client_id").asText();
        tries.run("get", "/admin/v1/accounts/{accountId}/clients", 200, op -> parameters(op, ids));

        // The integrator's key and self-signed certificate, made outside the browser; the certificate registered in it
        KeyPair keys = KeyPairs.ecP256();
        X509Certificate cert = CertificateBuilder.selfSigned(keys, "swagger.example",
                Instant.now().plus(Duration.ofDays(30)), "swagger.example");
        String certUuid = tries.run("post", "/admin/v1/accounts/{accountId}/certificates", 201, op -> {
            parameters(op, ids);
            body(op, json(Map.of("certificate", Pem.toPem(cert))));
        }).path("certificate_uuid").asText();
        tries.run("get", "/admin/v1/accounts/{accountId}/certificates", 200, op -> parameters(op, ids));

        // The signed API: the body signed outside the browser with the current time (what platform-cli sign does),
        // pasted with the signature headers and SignatureCertUUID; nothing else filled in.
        String tokenBody = "{\"client_id\":\"" + clientId + "\",\"fqdn\":\"swagger.example\",\"timestamp\":\"%s\"}";
        JsonNode token = tries.run("post", "/platform/management/token/issue", 200, op -> {
            assertTrue(op.getText().contains("computed outside the browser"), "the signing guidance is shown");
            signed(op, keys, certUuid, tokenBody);
        });
        assertEquals(clientId, token.path("client_id").asText());
        assertTrue(token.path("access_token").asText().startsWith("eyJ"), token.toString());
        shot("swagger-management-token");
        tries.run("post", "/jwt/issue", 200, op -> signed(op, keys, certUuid, tokenBody));
        JsonNode clients = tries.run("post", "/platform/management/clients", 200,
                op -> signed(op, keys, certUuid, "{\"fqdn\":\"swagger.example\",\"timestamp\":\"%s\"}"));
        assertTrue(clients.toString().contains(clientId), clients.toString());
        tries.run("get", "/platform/management/jwks.json", 200, op -> {
        });

        // A block of another certificate (not the one signing here), listed, then lifted
        String blocked = sha256(CertificateBuilder.selfSigned(KeyPairs.ecP256(), "blocked.swagger.example",
                Instant.now().plus(Duration.ofDays(30)), "blocked.swagger.example"));
        Map<String, String> fingerprint = Map.of("sha256", blocked);
        tries.run("put", "/admin/v1/certificate-blocks/{sha256}", 200, op -> {
            parameters(op, fingerprint);
            body(op, "{\"reason\":\"reported stolen\"}");
        });
        tries.run("get", "/admin/v1/certificate-blocks", 200, op -> {
        });
        tries.run("delete", "/admin/v1/certificate-blocks/{sha256}", 204, op -> parameters(op, fingerprint));
        tries.run("post", "/admin/v1/chain-cache/purge", 202, op -> {
        });
        tries.run("get", "/admin/v1/jwt/signing-key", 200, op -> {
        });

        // What disables or removes, once the signed API has used the account, its client and its certificate
        Map<String, String> client = Map.of("accountId", accountId, "clientId", clientId);
        tries.run("post", "/admin/v1/accounts/{accountId}/clients/{clientId}/disable", 200,
                op -> parameters(op, client));
        tries.run("post", "/admin/v1/accounts/{accountId}/clients/{clientId}/enable", 200,
                op -> parameters(op, client));
        tries.run("post", "/admin/v1/accounts/{accountId}/disable", 200, op -> parameters(op, ids));
        tries.run("post", "/admin/v1/accounts/{accountId}/enable", 200, op -> parameters(op, ids));
        tries.run("delete", "/admin/v1/accounts/{accountId}/certificates/{certificateUuid}", 204,
                op -> parameters(op, Map.of("accountId", accountId, "certificateUuid", certUuid)));
        tries.run("post", "/admin/v1/jwt/rotate", 200, op -> {
        });
        audit(tries);

        // The internal API, with the internal key
        authorize(Platform.MANAGEMENT_INTERNAL_KEY);
        tries.run("get", "/internal/v1/revocations", 200, op -> {
        });
        tries.run("get", "/internal/v1/accounts/{accountId}", 200, op -> parameters(op, ids));
        tries.assertEveryOperationTried();
    }

    @Test
    void hookServiceEveryOperation() throws Exception {
        // An account whose webhook answers 500 (Platform's receiver): its deliveries fail, then are dead-lettered
        String management = "http://127.0.0.1:" + Platform.managementPort;
        String accountId = call("POST", management + "/admin/v1/accounts", json(Map.of("name", "Swagger Hooks",
                "fqdn", "hooks.swagger.example", "business_id", "7373", "webhook_url", "http://127.0.0.1:"
                        + Platform.receiverPort + "/hooks/hooks")))
                .path("account_id").asText();
        Tries tries = new Tries(Platform.hookPort);
        authorize(Platform.HOOK_INTERNAL_KEY);
        JsonNode stored = tries.run("post", "/internal/v1/events", 202, op -> body(op, json(event(accountId, 5150))));
        String eventId = stored.path("event_id").asText();
        tries.run("post", "/internal/v1/events/batch", 200,
                op -> body(op, json(Map.of("events", List.of(event(accountId, 5151))))));
        tries.run("get", "/platform/hooks/certificate", 200, op -> {
        });

        // The delivery of the first event, once its attempts are over (dead-lettered): a retry has something to do
        String hook = "http://127.0.0.1:" + Platform.hookPort;
        String[] deliveryId = new String[1];
        Awaitility.await("the delivery of event " + eventId + " dead-lettered").atMost(PATIENCE)
                .pollInterval(Duration.ofMillis(200)).until(() -> {
                    for (JsonNode d : call("GET", hook + "/admin/v1/deliveries?account_id=" + accountId, null)) {
                        if (eventId.equals(d.path("event_id").asText()) && "DEAD".equals(d.path("status").asText())) {
                            deliveryId[0] = d.path("delivery_id").asText();
                            return true;
                        }
                    }
                    return false;
                });
        Map<String, String> delivery = Map.of("id", deliveryId[0]);
        Map<String, String> account = Map.of("accountId", accountId);

        authorize(Platform.OPERATOR_KEY);
        tries.run("get", "/admin/v1/deliveries/summary", 200, op -> {
        });
        JsonNode deliveries = tries.run("get", "/admin/v1/deliveries", 200, op -> {
            for (WebElement input : op.findElements(By.cssSelector("tr[data-param-name] input"))) {
                assertEquals("", input.getAttribute("value"), "a filter filled in that nobody typed");
            }
        });
        assertTrue(deliveries.toString().contains(deliveryId[0]), "the event's delivery is listed: " + deliveries);
        shot("swagger-hook-deliveries");
        tries.run("get", "/admin/v1/deliveries/{id}", 200, op -> parameters(op, delivery));
        tries.run("get", "/admin/v1/deliveries/{id}/attempts", 200, op -> parameters(op, delivery));
        tries.run("get", "/admin/v1/accounts/{accountId}/endpoint", 200, op -> parameters(op, account));
        tries.run("post", "/admin/v1/accounts/{accountId}/endpoint/disable", 200, op -> parameters(op, account));
        tries.run("post", "/admin/v1/accounts/{accountId}/endpoint/enable", 200, op -> parameters(op, account));
        tries.run("post", "/admin/v1/accounts/{accountId}/replay-dead-letters", 200, op -> parameters(op, account));
        // after the replay (which queued the dead delivery again): once more dead-lettered, then retried
        Awaitility.await("delivery " + deliveryId[0] + " dead-lettered again").atMost(PATIENCE)
                .pollInterval(Duration.ofMillis(200)).until(() -> "DEAD".equals(call("GET", hook
                        + "/admin/v1/deliveries/" + deliveryId[0], null).path("status").asText()));
        tries.run("post", "/admin/v1/deliveries/{id}/retry", 200, op -> parameters(op, delivery));
        audit(tries);

        // The erasure of the two messages' deliveries, last, with the internal key
        authorize(Platform.HOOK_INTERNAL_KEY);
        tries.run("post", "/internal/v1/erasures", 200,
                op -> body(op, json(Map.of("account_id", accountId, "message_ids", List.of(5150, 5151)))));
        tries.assertEveryOperationTried();
    }

    @Test
    void uploadServiceEveryOperation() throws Exception {
        // The integrator's token, asked for outside the browser (platform-cli request token does the same).
        String management = "http://127.0.0.1:" + Platform.managementPort;
        String accountId = call("POST", management + "/admin/v1/accounts", json(Map.of("name", "Swagger Upload",
                "fqdn", "upload.swagger.example", "business_id", "6262", "webhook_url",
                "http://127.0.0.1:" + Platform.receiverPort + "/hooks/upload"))).path("account_id").asText();
        KeyPair keys = KeyPairs.ecP256();
        X509Certificate cert = CertificateBuilder.selfSigned(keys, "upload.swagger.example",
                Instant.now().plus(Duration.ofDays(30)), "upload.swagger.example");
        String certUuid = call("POST", management + "/admin/v1/accounts/" + accountId + "/certificates",
                json(Map.of("certificate", Pem.toPem(cert)))).path("certificate_uuid").asText();
        String clientId = call("POST", management + "/admin/v1/accounts/" + accountId + "/clients",
                json(Map.of("name", "uploader"))).path("client_id").asText();
        byte[] signed = JSON.writeValueAsBytes(Map.of("client_id", clientId, "fqdn", "upload.swagger.example",
                "timestamp", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString()));
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(management
                + "/platform/management/token/issue/")).header("Content-Type", "application/json")
                .header("SignatureCertUUID", certUuid).POST(HttpRequest.BodyPublishers.ofByteArray(signed));
        new ManagementRequestSigner(keys.getPrivate()).headers(signed, false).forEach(request::header);
        HttpResponse<String> issued = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, issued.statusCode(), issued.body());
        String token = JSON.readTree(issued.body()).path("access_token").asText();
        Path file = Files.createTempFile(Path.of("target").toAbsolutePath(), "swagger-", ".png");
        byte[] png = new byte[1500];
        System.arraycopy(new byte[]{(byte) 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A}, 0, png, 0, 8);
        Files.write(file, png);

        Tries tries = new Tries(Platform.uploadPort);
        authorize(Platform.OPERATOR_KEY);
        tries.run("post", "/admin/v1/users", 201, op -> body(op, "{\"auth_id\":\"swagger\",\"business_id\":\"6262\"}"));
        tries.run("get", "/admin/v1/users", 200, op -> {
        });

        authorize(token);
        JsonNode logged = tries.run("post", "/v1.0/log_file_from_user", 200, op -> {
            parameter(op, "client-id", clientId);
            parameter(op, "auth_id", "swagger");
            parameter(op, "business_id", "6262");
            new Select(row(op, "message_type").findElement(By.tagName("select"))).selectByVisibleText("1");
            row(op, "file").findElement(By.cssSelector("input[type=file]")).sendKeys(file.toString());
            WebElement messageBody = row(op, "message_body").findElement(By.tagName("input"));
            assertEquals("", messageBody.getAttribute("value"), "message_body filled in that nobody typed");
        });
        assertTrue(logged.path("message_id").asLong() > 0, logged.toString());
        assertTrue(!logged.has("message_body") || logged.path("message_body").isNull()
                || logged.path("message_body").asText().isEmpty(), "no message_body was sent: " + logged);
        shot("swagger-upload-stored");

        authorize(Platform.OPERATOR_KEY);
        JsonNode messages = tries.run("get", "/admin/v1/messages", 200,
                op -> parameters(op, Map.of("account_id", accountId)));
        assertEquals(logged.path("message_id").asLong(), messages.path(0).path("message_id").asLong(),
                "the upload is stored: " + messages);
        tries.run("get", "/admin/v1/quotas/{accountId}", 200, op -> parameters(op, Map.of("accountId", accountId)));
        tries.run("get", "/admin/v1/outbox", 200, op -> {
        });
        // file_url: <public base>/files/{id}/{name}
        String[] fileUrl = logged.path("file_url").asText().split("/");
        tries.run("get", "/files/{id}/{name}", 200, op -> parameters(op, Map.of("id", fileUrl[fileUrl.length - 2],
                "name", fileUrl[fileUrl.length - 1])));

        // Last, what removes: a user of their own for the removal, then the uploader's erasure
        call("POST", "http://127.0.0.1:" + Platform.uploadPort + "/admin/v1/users",
                json(Map.of("auth_id", "swaggerremoved", "business_id", "6262")));
        tries.run("delete", "/admin/v1/users/{businessId}/{authId}", 204,
                op -> parameters(op, Map.of("businessId", "6262", "authId", "swaggerremoved")));
        String erasureId = tries.run("post", "/admin/v1/erasures", 201,
                op -> body(op, "{\"business_id\":\"6262\",\"auth_id\":\"swagger\"}")).path("erasure_id").asText();
        tries.run("get", "/admin/v1/erasures", 200, op -> {
        });
        tries.run("get", "/admin/v1/erasures/{id}", 200, op -> parameters(op, Map.of("id", erasureId)));
        audit(tries);
        tries.assertEveryOperationTried();
    }

    /** The service's audit trail (service-support's, in each service): the operator actions just tried are listed. */
    private static void audit(Tries tries) throws Exception {
        JsonNode actions = tries.run("get", "/admin/v1/audit", 200, op -> {
        });
        assertTrue(actions.isArray() && actions.size() > 0, "the actions tried are in the audit trail: " + actions);
    }

    /** What a person fills in on one operation, once "Try it out" is pressed. */
    interface Fill {
        void in(WebElement operation) throws Exception;
    }

    /**
     * The operations of one service's document (read from the running service) and those tried in its Swagger UI:
     * each tried once, its status checked against the 2xx the document lists for it.
     */
    static final class Tries {
        final int port;
        final JsonNode paths;
        final Map<String, List<String>> successes = new LinkedHashMap<>();
        final Set<String> tried = new LinkedHashSet<>();

        Tries(int port) throws Exception {
            this.port = port;
            paths = OpenApiDocument.parse(document(port)).root().path("paths");
            paths.fields().forEachRemaining(path -> path.getValue().fields().forEachRemaining(op -> {
                if (METHODS.contains(op.getKey())) {
                    List<String> ok = new ArrayList<>();
                    op.getValue().path("responses").fieldNames().forEachRemaining(status -> {
                        if (status.startsWith("2")) {
                            ok.add(status);
                        }
                    });
                    successes.put(name(op.getKey(), path.getKey()), ok);
                }
            }));
            List<String> undocumented = successes.entrySet().stream().filter(e -> e.getValue().isEmpty())
                    .map(Map.Entry::getKey).toList();
            assertEquals(List.of(), undocumented, "operations whose success the document does not list (port " + port
                    + ")");
            open(port);
        }

        static String name(String method, String path) {
            return method.toUpperCase(Locale.ROOT) + " " + path;
        }

        /** Opens the operation, presses "Try it out", fills it in, executes it and checks the status; its body. */
        JsonNode run(String method, String path, int status, Fill fill) throws Exception {
            String name = name(method, path);
            List<String> documented = successes.get(name);
            assertTrue(documented != null, name + " is not in the document: " + successes.keySet());
            assertTrue(documented.contains(String.valueOf(status)), name + ": " + status
                    + " is not a success the document lists " + documented);
            assertTrue(tried.add(name), name + " tried twice");
            WebElement op = tryItOut(method, path);
            fill.in(op);
            JsonNode answer = execute(op, status);
            collapse(method, path);
            return answer;
        }

        /** Every operation of the document was tried: a new one cannot be added without being tried here. */
        void assertEveryOperationTried() {
            List<String> missed = successes.keySet().stream().filter(name -> !tried.contains(name)).toList();
            assertEquals(List.of(), missed, "operations of the document on port " + port
                    + " not tried in Swagger UI");
        }
    }

    /** The service's OpenAPI document, as its Swagger UI reads it. */
    private static String document(int port) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(q(port) + "/openapi?format=json"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return r.body();
    }

    private static String json(Object value) throws IOException {
        return JSON.writeValueAsString(value);
    }

    private static Map<String, Object> event(String accountId, long messageId) {
        Map<String, Object> event = new LinkedHashMap<>();
        event.put("account_id", accountId);
        event.put("user_id", "u7");
        event.put("conversation_number", 1);
        event.put("message_body", "hello");
        event.put("message_id", messageId);
        event.put("sender", "user");
        event.put("timestamp", "2026-11-22T10:00:00.000Z");
        return event;
    }

    private static String sha256(X509Certificate cert) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(cert.getEncoded()));
    }

    /**
     * A signed request as a person sends it from Swagger UI: the body (its timestamp now) signed outside the browser,
     * pasted unchanged, with the signature headers and SignatureCertUUID.
     */
    private static void signed(WebElement block, KeyPair keys, String certUuid, String bodyWithTimestamp) {
        String signedBody = bodyWithTimestamp.formatted(Instant.now().truncatedTo(ChronoUnit.SECONDS));
        body(block, signedBody);
        new ManagementRequestSigner(keys.getPrivate()).headers(signedBody.getBytes(StandardCharsets.UTF_8), false)
                .forEach((name, value) -> parameter(block, name, value));
        parameter(block, "SignatureCertUUID", certUuid);
    }

    private static void parameters(WebElement block, Map<String, String> values) {
        values.forEach((name, value) -> parameter(block, name, value));
    }

    /**
     * Where the service on {@code port} serves Quarkus's /q/ endpoints (Swagger UI, the OpenAPI document): the one place
     * to change should they move to another port.
     */
    private static String q(int port) {
        return "http://127.0.0.1:" + port + "/q";
    }

    private static void open(int port) {
        browser.get(q(port) + "/swagger-ui/");
        until(PATIENCE).until(ExpectedConditions.presenceOfElementLocated(By.cssSelector(".opblock")));
    }

    /**
     * The Authorize dialog: the key alone (Swagger UI adds "Bearer"), then closed. Authorized already (another key, for
     * another API of the service): Logout first, as a person does.
     */
    private static void authorize(String key) {
        WebElement open = browser.findElement(By.cssSelector(".scheme-container .authorize"));
        scroll(open);
        open.click();
        WebElement dialog = until(PATIENCE)
                .until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".modal-ux")));
        assertTrue(dialog.getText().contains("keys.env"), "the dialog says where the key is: " + dialog.getText());
        By input = By.cssSelector("input[type=text], input[type=password]");
        if (dialog.findElements(input).isEmpty()) {
            dialog.findElement(By.xpath(".//div[contains(@class,'auth-btn-wrapper')]/button[normalize-space()"
                    + "='Logout']")).click();
            until(PATIENCE).until(d -> !dialog.findElements(input).isEmpty());
        }
        dialog.findElement(input).sendKeys(key);
        dialog.findElement(By.cssSelector(".auth-btn-wrapper .authorize")).click();
        until(PATIENCE).until(d -> !dialog.findElements(By.cssSelector(".auth-btn-wrapper .btn-done")).isEmpty()
                && dialog.getText().contains("Logout"));
        dialog.findElement(By.cssSelector(".auth-btn-wrapper .btn-done")).click();
        until(PATIENCE).until(ExpectedConditions.invisibilityOfElementLocated(By.cssSelector(".modal-ux")));
    }

    /** Opens the operation and presses "Try it out"; returns its block. */
    private static WebElement tryItOut(String method, String path) {
        WebElement summary = until(PATIENCE).until(ExpectedConditions.presenceOfElementLocated(By.cssSelector(
                ".opblock-" + method + " .opblock-summary-path[data-path='" + path + "']")));
        WebElement block = summary.findElement(By.xpath("ancestor::div[contains(@class,'opblock ')][1]"));
        scroll(summary);
        summary.click();
        WebElement button = until(PATIENCE).until(d -> block.findElements(By.cssSelector(".try-out__btn")).stream()
                .filter(WebElement::isDisplayed).findFirst().orElse(null));
        scroll(button);
        button.click();
        until(PATIENCE).until(d -> !block.findElements(By.cssSelector(".execute")).isEmpty());
        return block;
    }

    /** Closes the operation again, so that the page holds one open operation at a time. */
    private static void collapse(String method, String path) {
        WebElement summary = browser.findElement(By.cssSelector(".opblock-" + method
                + " .opblock-summary-path[data-path='" + path + "']"));
        WebElement block = summary.findElement(By.xpath("ancestor::div[contains(@class,'opblock ')][1]"));
        scroll(summary);
        summary.click();
        until(PATIENCE).until(d -> !block.getAttribute("class").contains("is-open"));
    }

    private static void body(WebElement block, String json) {
        WebElement text = block.findElement(By.cssSelector("textarea.body-param__text"));
        text.clear();
        // set as a whole (typing would let the editor re-indent nothing, but is slow); React sees the input event
        ((JavascriptExecutor) browser).executeScript("const t = arguments[0], v = arguments[1];"
                + "const set = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set;"
                + "set.call(t, v); t.dispatchEvent(new Event('input', {bubbles: true}));", text, json);
        text.sendKeys(" ");
        text.sendKeys(org.openqa.selenium.Keys.BACK_SPACE);
        assertEquals(json, text.getAttribute("value"));
    }

    private static void parameter(WebElement block, String name, String value) {
        WebElement input = row(block, name).findElement(By.cssSelector("input"));
        assertEquals("", input.getAttribute("value"), name + " filled in that nobody typed");
        input.sendKeys(value);
    }

    /** A parameter's row, or a form field's (Swagger UI marks those data-property-name). */
    private static WebElement row(WebElement block, String name) {
        return block.findElement(By.cssSelector("tr[data-param-name='" + name + "'], tr[data-property-name='" + name
                + "']"));
    }

    /** Presses Execute and waits for the answer; checks its status and returns its body. */
    private static JsonNode execute(WebElement block, int status) throws IOException {
        WebElement execute = block.findElement(By.cssSelector(".execute"));
        scroll(execute);
        execute.click();
        // an answer, or fields marked invalid: then Swagger UI sends nothing
        String answer = ".live-responses-table .response .response-col_status";
        try {
            until(PATIENCE).until(d -> !block.findElements(By.cssSelector(answer + ", .invalid")).isEmpty());
        } catch (org.openqa.selenium.TimeoutException e) {
            shot("swagger-no-answer");
            throw new AssertionError("no answer shown after Execute; the operation shows: " + block.getText(), e);
        }
        assertEquals(List.of(), block.findElements(By.cssSelector(".invalid")).stream().map(field -> field
                .findElement(By.xpath("ancestor::tr[1]")).getText().lines().findFirst().orElse("")).toList(),
                "Execute sent nothing: fields marked invalid");
        WebElement live = block.findElement(By.cssSelector(answer));
        String shown = block.findElement(By.cssSelector(".live-responses-table .response")).getText();
        assertTrue(live.getText().trim().startsWith(String.valueOf(status)), "expected " + status + ": " + shown);
        // a JSON body as Swagger UI shows it; none (204), or a file (a download link): null
        List<WebElement> shownBody = block.findElements(By.cssSelector(".live-responses-table .response"
                + " .response-col_description .highlight-code pre"));
        if (shownBody.isEmpty() || shownBody.get(0).getText().isBlank()) {
            return JSON.nullNode();
        }
        return JSON.readTree(shownBody.get(0).getText());
    }

    private static void scroll(WebElement element) {
        ((JavascriptExecutor) browser).executeScript("arguments[0].scrollIntoView({block: 'center'});", element);
    }

    private static WebDriverWait until(Duration patience) {
        return new WebDriverWait(browser, patience);
    }

    private static void shot(String name) throws IOException {
        Files.write(SHOTS.resolve(name + ".png"), ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
    }

    private static JsonNode call(String method, String url, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url))
                .header("Authorization", "Bearer " + Platform.OPERATOR_KEY).header("Content-Type", "application/json")
                .method(method, body == null
                        ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() >= 300) {
            throw new IllegalStateException(method + " " + url + ": " + r.statusCode() + " " + r.body());
        }
        return r.body().isEmpty() ? JSON.nullNode() : JSON.readTree(r.body());
    }
}
