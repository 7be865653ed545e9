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
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Swagger UI of each of the three services (their built jars, as {@link BrowserJourneyTest} runs them), used as a person
 * new to the platform uses it (issue 40): open it, authorize with the operator key, "Try it out" filling in only the
 * fields a person fills in, and get the documented success: an account created (management-service), a token issued
 * to a request signed outside the browser with SignatureCertUUID (management-service), a delivery list that shows the
 * deliveries (hook-service), an upload stored (upload-service). Every wait is for a state of the page. Screenshots in
 * target/screenshots/swagger-*.png. Tagged "browser", as the console's journey.
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
    void managementServiceCreatesAnAccountAndIssuesATokenToARequestSignedOutsideTheBrowser() throws Exception {
        open(Platform.managementPort);
        authorize(Platform.OPERATOR_KEY);
        WebElement create = tryItOut("post", "/admin/v1/accounts");
        body(create, "{\"name\":\"Swagger Shop\",\"fqdn\":\"swagger.example\",\"business_id\":\"5151\","
                + "\"webhook_url\":\"http://127.0.0.1:" + Platform.receiverPort + "/hooks/swagger\"}");
        JsonNode account = execute(create, 201);
        assertEquals("swagger.example", account.path("fqdn").asText());
        shot("swagger-management-account");
        String accountId = account.path("account_id").asText();

        // The integrator's side, outside the browser: a key and a registered self-signed certificate, a client, and
        // the body signed with the current time (what platform-cli sign does).
        KeyPair keys = KeyPairs.ecP256();
        X509Certificate cert = CertificateBuilder.selfSigned(keys, "swagger.example",
                Instant.now().plus(Duration.ofDays(30)), "swagger.example");
        String management = "http://127.0.0.1:" + Platform.managementPort;
        String certUuid = call("POST", management + "/admin/v1/accounts/" + accountId + "/certificates",
                JSON.writeValueAsString(Map.of("certificate", Pem.toPem(cert)))).path("certificate_uuid").asText();
        String clientId = call("POST", management + "/admin/v1/accounts/" + accountId + "/clients",
                JSON.writeValueAsString(Map.of("name", "swagger"))).path("client_id").asText();
        String signedBody = "{\"client_id\":\"" + clientId + "\",\"fqdn\":\"swagger.example\",\"timestamp\":\""
                + Instant.now().truncatedTo(ChronoUnit.SECONDS) + "\"}";
        Map<String, String> signature = new ManagementRequestSigner(keys.getPrivate())
                .headers(signedBody.getBytes(StandardCharsets.UTF_8), false);

        // In Swagger UI: the exact body, the signature headers and SignatureCertUUID; nothing else filled in.
        WebElement issue = tryItOut("post", "/platform/management/token/issue");
        assertTrue(issue.getText().contains("computed outside the browser"), "the signing guidance is shown");
        body(issue, signedBody);
        signature.forEach((name, value) -> parameter(issue, name, value));
        parameter(issue, "SignatureCertUUID", certUuid);
        JsonNode token = execute(issue, 200);
        assertEquals(clientId, token.path("client_id").asText());
        assertTrue(token.path("access_token").asText().startsWith("eyJ"), token.toString());
        shot("swagger-management-token");
    }

    @Test
    void hookServiceListsTheDeliveriesWithNoFilterFilledIn() throws Exception {
        String account = "swagger-hooks-" + System.nanoTime();
        Map<String, Object> event = new LinkedHashMap<>();
        event.put("account_id", account);
        event.put("user_id", "u7");
        event.put("conversation_number", 1);
        event.put("message_body", "hello");
        event.put("message_id", 5150);
        event.put("sender", "user");
        event.put("timestamp", "2026-11-22T10:00:00.000Z");
        HttpResponse<String> stored = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + Platform.hookPort + "/internal/v1/events")).header("Authorization", "Bearer "
                        + Platform.HOOK_INTERNAL_KEY)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(event))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(202, stored.statusCode(), stored.body());

        open(Platform.hookPort);
        authorize(Platform.OPERATOR_KEY);
        WebElement list = tryItOut("get", "/admin/v1/deliveries");
        for (WebElement input : list.findElements(By.cssSelector("tr[data-param-name] input"))) {
            assertEquals("", input.getAttribute("value"), "a filter filled in that nobody typed");
        }
        JsonNode deliveries = execute(list, 200);
        assertTrue(deliveries.isArray() && deliveries.size() > 0, deliveries.toString());
        boolean found = false;
        for (JsonNode d : deliveries) {
            found |= account.equals(d.path("account_id").asText());
        }
        assertTrue(found, "the event's delivery is listed: " + deliveries);
        shot("swagger-hook-deliveries");
    }

    @Test
    void uploadServiceStoresAnUploadWithOnlyTheFieldsAPersonFillsIn() throws Exception {
        // The integrator's token, asked for outside the browser (platform-cli request token does the same).
        String management = "http://127.0.0.1:" + Platform.managementPort;
        String accountId = call("POST", management + "/admin/v1/accounts", JSON.writeValueAsString(Map.of("name",
                "Swagger Upload", "fqdn", "upload.swagger.example", "business_id", "6262", "webhook_url",
                "http://127.0.0.1:" + Platform.receiverPort + "/hooks/upload"))).path("account_id").asText();
        KeyPair keys = KeyPairs.ecP256();
        X509Certificate cert = CertificateBuilder.selfSigned(keys, "upload.swagger.example",
                Instant.now().plus(Duration.ofDays(30)), "upload.swagger.example");
        String certUuid = call("POST", management + "/admin/v1/accounts/" + accountId + "/certificates",
                JSON.writeValueAsString(Map.of("certificate", Pem.toPem(cert)))).path("certificate_uuid").asText();
        String clientId = call("POST", management + "/admin/v1/accounts/" + accountId + "/clients",
                JSON.writeValueAsString(Map.of("name", "uploader"))).path("client_id").asText();
        byte[] signed = JSON.writeValueAsBytes(Map.of("client_id", clientId, "fqdn", "upload.swagger.example",
                "timestamp", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString()));
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(management
                + "/platform/management/token/issue/")).header("Content-Type", "application/json")
                .header("SignatureCertUUID", certUuid).POST(HttpRequest.BodyPublishers.ofByteArray(signed));
        new ManagementRequestSigner(keys.getPrivate()).headers(signed, false).forEach(request::header);
        HttpResponse<String> issued = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, issued.statusCode(), issued.body());
        String token = JSON.readTree(issued.body()).path("access_token").asText();
        call("POST", "http://127.0.0.1:" + Platform.uploadPort + "/admin/v1/users",
                JSON.writeValueAsString(Map.of("auth_id", "swagger", "business_id", "6262")));
        Path file = Files.createTempFile(Path.of("target").toAbsolutePath(), "swagger-", ".png");
        byte[] png = new byte[1500];
        System.arraycopy(new byte[]{(byte) 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A}, 0, png, 0, 8);
        Files.write(file, png);

        open(Platform.uploadPort);
        authorize(token);
        WebElement upload = tryItOut("post", "/v1.0/log_file_from_user");
        parameter(upload, "client-id", clientId);
        parameter(upload, "auth_id", "swagger");
        parameter(upload, "business_id", "6262");
        new Select(row(upload, "message_type").findElement(By.tagName("select")))
                .selectByVisibleText("1");
        row(upload, "file").findElement(By.cssSelector("input[type=file]"))
                .sendKeys(file.toString());
        WebElement messageBody = row(upload, "message_body").findElement(By.tagName("input"));
        assertEquals("", messageBody.getAttribute("value"), "message_body filled in that nobody typed");
        JsonNode logged = execute(upload, 200);
        assertTrue(logged.path("message_id").asLong() > 0, logged.toString());
        assertTrue(!logged.has("message_body") || logged.path("message_body").isNull()
                || logged.path("message_body").asText().isEmpty(), "no message_body was sent: " + logged);
        shot("swagger-upload-stored");
        JsonNode messages = call("GET", "http://127.0.0.1:" + Platform.uploadPort + "/admin/v1/messages?account_id="
                + accountId, null);
        assertEquals(logged.path("message_id").asLong(), messages.path(0).path("message_id").asLong(),
                "the upload is stored: " + messages);
    }

    private static void open(int port) {
        browser.get("http://127.0.0.1:" + port + "/q/swagger-ui/");
        until(PATIENCE).until(ExpectedConditions.presenceOfElementLocated(By.cssSelector(".opblock")));
    }

    /** The Authorize dialog: the key alone (Swagger UI adds "Bearer"), then closed. */
    private static void authorize(String key) {
        browser.findElement(By.cssSelector(".scheme-container .authorize")).click();
        WebElement dialog = until(PATIENCE)
                .until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".modal-ux")));
        assertTrue(dialog.getText().contains("keys.env"), "the dialog says where the key is: " + dialog.getText());
        dialog.findElement(By.cssSelector("input[type=text], input[type=password]")).sendKeys(key);
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
        String text = block.findElement(By.cssSelector(".live-responses-table .response .microlight, "
                + ".live-responses-table .response pre")).getText();
        return JSON.readTree(text);
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
