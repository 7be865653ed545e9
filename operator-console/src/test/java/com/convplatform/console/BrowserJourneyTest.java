package com.convplatform.console;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.URL;
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
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoSuchElementException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.WebDriverWait;

import com.convplatform.crypto.management.ManagementRequestSigner;
import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pki.CertificateBuilder;
import com.convplatform.crypto.pki.KeyPairs;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;

/**
 * In the machine's Chromium, against the real three services (their built jars, embedded storage): an operator signs
 * in, sees the overview's figures (the upload outbox empty, the JWT signing key due for rotation in five days), and
 * answers "did customer acme.example get message 4711, and if not, why?" in three clicks from the overview (find, the
 * delivery, retry), then sees it delivered; finds the account through management-service's search and sees the file
 * it uploaded (through the real token and upload endpoints) handed off. Screenshots of each page are kept in
 * target/screenshots. Tagged "browser": run by {@code -Dgroups=browser -DexcludedGroups=} after the services are built.
 */
@QuarkusTest
@QuarkusTestResource(value = Platform.class, restrictToAnnotatedClass = true)
@Tag("browser")
@EnabledIf(value = "chromiumPresent", disabledReason = "no /usr/bin/chromium and /usr/bin/chromedriver on this"
        + " machine (apt-get install -y chromium chromium-driver): the browser test is skipped")
class BrowserJourneyTest {
    static final Path SHOTS = Path.of("target", "screenshots");
    static final ObjectMapper JSON = new ObjectMapper();
    static final DateTimeFormatter UTC = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'Z'")
            .withZone(ZoneOffset.UTC);
    static WebDriver browser;

    @TestHTTPResource("/")
    URL console;

    static boolean chromiumPresent() {
        return HeadlessChromium.present();
    }

    @BeforeAll
    static void openBrowser() throws IOException {
        Files.createDirectories(SHOTS);
        browser = HeadlessChromium.open("chromium-profile-");
    }

    @AfterAll
    static void closeBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    @Test
    void anOperatorFollowsAFailedHookToItsAttemptsRetriesItAndSeesItDelivered() throws Exception {
        String account = createAccount("Acme Support", "acme.example", "4242");
        Platform.RECEIVER_STATUS.set(500);
        sendEvent(account, 4711);
        await("message 4711 dead-lettered after its two attempts").atMost(Duration.ofSeconds(30))
                .until(() -> "DEAD".equals(hook("/admin/v1/deliveries?account_id=" + account).path(0).path("status")
                        .asText()));

        // Not signed in: the sign-in page, whatever was asked for.
        browser.get(url("/"));
        assertTrue(browser.getCurrentUrl().endsWith("/login"), browser.getCurrentUrl());
        pageShots("01-sign-in");
        // A wrong password: the form again, saying so (never the API's JSON, never a dead end).
        browser.findElement(By.id("j_username")).sendKeys("alice");
        browser.findElement(By.id("j_password")).sendKeys("not-the-password");
        navigate(By.id("sign-in"));
        assertTrue(browser.getCurrentUrl().endsWith("/login?failed=1"), browser.getCurrentUrl());
        assertTrue(browser.findElement(By.id("login-failed")).getText().startsWith("Sign-in refused"));
        pageShots("01-sign-in-refused");
        browser.findElement(By.id("j_username")).clear();
        browser.findElement(By.id("j_username")).sendKeys("alice");
        browser.findElement(By.id("j_password")).sendKeys(ConsoleSecurityTest.PASSWORD);
        navigate(By.id("sign-in"));

        // The overview: the dead letter is counted, in the warning colour.
        assertEquals("Overview", browser.findElement(By.tagName("h1")).getText());
        assertEquals("alice", browser.findElement(By.id("operator-name")).getText());
        WebElement dead = browser.findElement(By.id("tile-dead"));
        assertTrue(dead.getAttribute("class").contains("bad"), dead.getAttribute("class"));
        assertTrue(dead.getText().startsWith("1 "), dead.getText());
        assertTrue(browser.findElement(By.id("tile-cert")).getText().contains("hook signing certificate expires"));
        // Nothing waits in upload-service's outbox; the JWT key, first used 85 days ago, is due in 5 days (warning).
        WebElement outbox = browser.findElement(By.id("tile-outbox"));
        assertTrue(outbox.getAttribute("class").contains("ok"), outbox.getAttribute("class"));
        assertTrue(outbox.getText().startsWith("0 uploads waiting for hook-service"), outbox.getText());
        WebElement key = browser.findElement(By.id("tile-jwt-key"));
        assertTrue(key.getAttribute("class").contains("warn"), key.getAttribute("class"));
        assertTrue(key.getText().startsWith("JWT signing key first used 85 days ago"), key.getText());
        assertEquals(UTC.format(Platform.KEY_MADE.plus(Duration.ofDays(90))),
                browser.findElement(By.id("rotate-by")).getText());
        assertEquals("1", browser.findElement(By.cssSelector("#counts tbody tr:nth-child(1) td:nth-child(4)"))
                .getText(), "dead-lettered in the last hour");
        // The endpoint's two failed attempts: the current hour's count is the chart's last hour, in the warning colour
        // when above 0 (both attempts fall in this hour unless the hour turned between them).
        WebElement failed = browser.findElement(By.id("tile-failed"));
        String figure = failed.findElement(By.className("figure")).getText();
        assertEquals(browser.findElement(By.cssSelector("#hours tbody tr:last-child td:nth-child(3)"))
                .getAttribute("textContent"), figure);
        assertEquals("0".equals(figure) ? "tile ok" : "tile warn", failed.getAttribute("class"));
        // The last 24 hours, drawn by the server as SVG, the numbers in its title and in a table for screen readers.
        assertTrue(browser.findElements(By.tagName("script")).isEmpty(), "no script on the page");
        assertEquals(72, browser.findElements(By.cssSelector("#chart rect.bar")).size(), "24 hours, 3 bars each");
        String title = (String) ((JavascriptExecutor) browser).executeScript(
                "return document.getElementById('chart-title').textContent");
        assertTrue(title.contains(": 0 delivered, 2 failed attempts, 1 dead;"), title);
        assertEquals(24, browser.findElements(By.cssSelector("#hours tbody tr")).size());
        pageShots("02-overview");

        // The account's page: its endpoint, enabled but failing, in the warning colour.
        browser.get(url("/accounts/" + account));
        WebElement state = browser.findElement(By.id("endpoint-state"));
        assertTrue(state.getText().startsWith("Enabled, failing."), state.getText());
        assertTrue(state.getAttribute("class").contains("warn"), state.getAttribute("class"));
        assertTrue(state.getText().contains("2 consecutive failures"), state.getText());
        pageShots("02-account-failing");
        navigate(By.linkText("Overview"));

        // Click 1: find the customer's message.
        browser.findElement(By.id("find-account")).sendKeys("acme.example");
        browser.findElement(By.id("find-message")).sendKeys("4711");
        navigate(By.id("find"));
        assertEquals("acme.example", browser.findElement(By.id("account-link")).getText());
        List<WebElement> rows = browser.findElements(By.cssSelector("#deliveries tbody tr"));
        assertEquals(1, rows.size());
        assertTrue(rows.get(0).getText().contains("DEAD"), rows.get(0).getText());
        pageShots("03-deliveries");

        // Click 2: the delivery, its attempts, and why it failed.
        navigate(rows.get(0).findElement(By.className("delivery-link")));
        assertEquals("DEAD", browser.findElement(By.id("status")).getText());
        assertEquals("4711", browser.findElement(By.id("message-id")).getText());
        assertTrue(browser.findElement(By.id("last-error")).getText().contains("500"),
                browser.findElement(By.id("last-error")).getText());
        List<WebElement> attempts = browser.findElements(By.cssSelector("#attempts tbody tr"));
        assertEquals(2, attempts.size(), "attempts");
        for (WebElement attempt : attempts) {
            assertTrue(attempt.findElements(By.tagName("td")).get(2).getText().equals("500"), attempt.getText());
        }
        signatureHeadersShown(attempts);
        assertTrue(browser.findElement(By.id("payload")).getText().contains("\"message_id\":4711"));
        pageShots("04-delivery-failed");

        // Click 3: the receiver is fixed; retry, and see it delivered.
        Platform.RECEIVER_STATUS.set(200);
        navigate(By.id("retry"));
        assertTrue(browser.findElement(By.id("notice")).getText().startsWith("Queued again"));
        // Waits for the state, reloading the page: each check finds the element again on the page just loaded (an
        // element of the page before the reload is stale, and is never read).
        new WebDriverWait(browser, Duration.ofSeconds(30)).pollingEvery(Duration.ofMillis(500))
                .ignoring(StaleElementReferenceException.class).ignoring(NoSuchElementException.class)
                .withMessage("the retried delivery to be shown delivered").until(driver -> {
                    driver.navigate().refresh();
                    return "DELIVERED".equals(driver.findElement(By.id("status")).getText());
                });
        assertEquals(3, browser.findElements(By.cssSelector("#attempts tbody tr")).size());
        signatureHeadersShown(browser.findElements(By.cssSelector("#attempts tbody tr")));
        assertEquals("200", browser.findElement(By.cssSelector("#attempts tbody tr:nth-child(3) td:nth-child(3)"))
                .getText());
        assertTrue(browser.findElements(By.id("retry")).isEmpty(), "no retry for a delivered hook");
        pageShots("05-delivery-delivered");

        // A file uploaded for the account, through the real token and upload endpoints, handed on to hook-service.
        long uploaded = uploadFile(account, "journey.png");
        await("the upload handed off to hook-service").atMost(Duration.ofSeconds(30)).until(() -> "HANDED_OFF"
                .equals(upload("/admin/v1/messages?account_id=" + account).path(0).path("handoff").asText()));

        // The account, found by its business id, and by part of its FQDN in capitals (management-service searches).
        navigate(By.linkText("Accounts"));
        browser.findElement(By.id("q")).sendKeys("ACME.EX");
        navigate(By.id("search"));
        assertEquals(1, browser.findElements(By.cssSelector("#accounts tbody tr")).size());
        browser.findElement(By.id("q")).clear();
        browser.findElement(By.id("q")).sendKeys("4242");
        navigate(By.id("search"));
        assertTrue(browser.getCurrentUrl().contains("/accounts?q=4242"), "shareable: " + browser.getCurrentUrl());
        assertEquals(1, browser.findElements(By.cssSelector("#accounts tbody tr")).size());
        pageShots("06-accounts");
        navigate(By.linkText("acme.example"));
        assertEquals("acme.example", browser.findElement(By.tagName("h1")).getText());
        assertEquals("http://127.0.0.1:" + Platform.receiverPort + "/hooks/acme",
                browser.findElement(By.id("webhook-url")).getText());
        assertTrue(browser.findElement(By.id("endpoint-state")).getText().startsWith("Enabled"));
        assertFalse(browser.findElements(By.cssSelector("#recent tbody tr")).isEmpty());
        List<WebElement> uploads = browser.findElements(By.cssSelector("#uploads tbody tr"));
        assertEquals(1, uploads.size(), "recent uploads");
        assertEquals(String.valueOf(uploaded), uploads.get(0).findElement(By.className("message-link")).getText());
        assertTrue(uploads.get(0).getText().contains("journey.png") && uploads.get(0).getText().contains("image/png")
                && uploads.get(0).getText().contains("handed off"), uploads.get(0).getText());
        pageShots("07-account");

        // The integrator's client disabled, after its confirmation page, in red; enabled again. Then the account.
        navigate(By.linkText("Disable…"));
        assertTrue(browser.findElement(By.id("question")).getText().startsWith("Disable client "));
        navigate(By.id("confirm"));
        assertTrue(browser.findElement(By.id("notice")).getText().startsWith("The client is disabled"));
        WebElement client = browser.findElement(By.cssSelector("#clients tbody tr .badge"));
        assertTrue(client.getText().startsWith("disabled ") && client.getAttribute("class").contains("bad"),
                client.getText());
        ((JavascriptExecutor) browser).executeScript("arguments[0].scrollIntoView()", client);
        pageShots("07-client-disabled");
        navigate(By.cssSelector("#clients tbody tr button"));
        assertEquals("enabled", browser.findElement(By.cssSelector("#clients tbody tr .badge")).getText());
        navigate(By.id("disable-account"));
        navigate(By.id("confirm"));
        WebElement accountState = browser.findElement(By.id("account-state"));
        assertTrue(accountState.getText().startsWith("Disabled since ")
                && accountState.getAttribute("class").contains("bad"), accountState.getText());
        assertTrue(management("/admin/v1/accounts/" + account).path("disabled_at").isTextual());
        navigate(By.id("enable-account"));
        assertTrue(browser.findElement(By.id("account-state")).getText().startsWith("Enabled"));
        assertEquals("alice", management("/admin/v1/audit?limit=1").path(0).path("operator").asText());

        // Disable with a reason: the overview then lists it.
        browser.findElement(By.id("reason")).sendKeys("receiver under maintenance");
        navigate(By.id("disable"));
        assertTrue(browser.findElement(By.id("endpoint-state")).getText()
                .startsWith("Disabled by operator"), browser.findElement(By.id("endpoint-state")).getText());
        navigate(By.linkText("Overview"));
        assertEquals("1", browser.findElement(By.cssSelector("#tile-disabled .figure")).getText());
        assertTrue(browser.findElement(By.id("main")).getText().contains("receiver under maintenance"));
        WebElement disabled = browser.findElement(By.id("tile-disabled"));
        assertTrue(disabled.getAttribute("class").contains("bad"), disabled.getAttribute("class"));
        pageShots("08-overview-disabled");

        // The audit page: the actions alice took, as the services recorded them with her name (X-Operator).
        navigate(By.linkText("Audit"));
        List<WebElement> actions = browser.findElements(By.cssSelector("#audit tbody tr"));
        assertTrue(actions.size() >= 2, "retry and disable recorded: " + actions.size());
        String newest = actions.get(0).getText();
        assertTrue(newest.contains("hook-service") && newest.contains("alice") && newest.contains("disable"),
                newest);
        assertTrue(browser.findElement(By.id("audit")).getText().contains("retry"));
        assertEquals("alice", hook("/admin/v1/audit?limit=1").path(0).path("operator").asText());
        pageShots("09-audit");
        browser.findElement(By.id("audit-operator")).sendKeys("nobody-else");
        navigate(By.id("audit-filter"));
        assertTrue(browser.findElement(By.id("audit-none")).getText().startsWith("No recorded actions of nobody-else"));

        // Sign-out ends the session on the server: the cookie put back into the browser opens nothing.
        org.openqa.selenium.Cookie session = browser.manage().getCookieNamed("quarkus-credential");
        navigate(By.cssSelector("form.signout button"));
        assertTrue(browser.getCurrentUrl().endsWith("/login?out=1"), browser.getCurrentUrl());
        browser.manage().addCookie(session);
        browser.get(url("/audit"));
        assertTrue(browser.getCurrentUrl().endsWith("/login"), browser.getCurrentUrl());
    }

    /** The widths every page is seen at: a desktop, and a phone (390 px) where nothing may scroll sideways. */
    static final int WIDE = 1280;
    static final int NARROW = 390;

    /**
     * Screenshots of the page at 1280 and at 390 px wide, and at 390 px the check that it fits: the document is no
     * wider than the window (tables scroll inside their own box, long ids wrap).
     */
    private static void pageShots(String name) throws IOException {
        shot(name + "-" + WIDE);
        resize(NARROW);
        long scroll = ((Number) ((JavascriptExecutor) browser).executeScript(
                "return document.scrollingElement.scrollWidth")).longValue();
        long inner = ((Number) ((JavascriptExecutor) browser).executeScript("return window.innerWidth")).longValue();
        assertTrue(scroll <= inner, name + " at " + NARROW + " px: the page is " + scroll + " px wide in a window of "
                + inner + " px (" + browser.getCurrentUrl() + ")");
        shot(name + "-" + NARROW);
        resize(WIDE);
    }

    /** Sets the viewport's width and waits until the page has been laid out at it (never for a time). */
    private static void resize(int width) {
        browser.manage().window().setSize(new Dimension(width, 1000));
        long outer = ((Number) ((JavascriptExecutor) browser).executeScript("return window.outerWidth")).longValue();
        long inner = ((Number) ((JavascriptExecutor) browser).executeScript("return window.innerWidth")).longValue();
        // A window has chrome around its viewport: ask for as much more as it has, so that the viewport is the width.
        if (inner != width) {
            browser.manage().window().setSize(new Dimension((int) (width + outer - inner), 1000));
        }
        new WebDriverWait(browser, Duration.ofSeconds(10)).until(driver -> ((Number) ((JavascriptExecutor) driver)
                .executeScript("return window.innerWidth")).longValue() == width);
    }

    /**
     * Clicks what leads to another page and waits until the browser has left this one and loaded the next: a form's
     * POST and its redirect end after the click returns, and the old page must not be read as the new one.
     */
    private static void navigate(By what) {
        navigate(browser.findElement(what));
    }

    private static void navigate(WebElement what) {
        // The page is marked in its window object, which the next document does not inherit. Asking an element of the
        // old page whether it is stale races Chromium's teardown of that page: the answer can be an "unknown error"
        // (the node no longer belongs to the document) instead of "stale", and failed this test once in CI.
        String mark = "journey-" + System.nanoTime();
        ((JavascriptExecutor) browser).executeScript("window.journeyPage = arguments[0]", mark);
        what.click();
        // While one document gives way to the next, a script may fail to run at all: that is asked again, not failed.
        new WebDriverWait(browser, Duration.ofSeconds(30)).ignoring(WebDriverException.class)
                .withMessage("the page after the click to have loaded")
                .until(driver -> Boolean.TRUE.equals(((JavascriptExecutor) driver).executeScript(
                        "return window.journeyPage === undefined && document.readyState === 'complete'")));
    }

    private String url(String path) {
        return console.toString().replaceAll("/$", "") + path;
    }

    private static void shot(String name) throws IOException {
        byte[] png = ((org.openqa.selenium.TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES);
        Files.write(SHOTS.resolve(name + ".png"), png);
    }

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static JsonNode call(String method, String url, String key, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + key)
                .header("Content-Type", "application/json").method(method, body == null
                        ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() >= 300) {
            throw new IllegalStateException(method + " " + url + ": " + r.statusCode() + " " + r.body());
        }
        return r.body().isEmpty() ? JSON.nullNode() : JSON.readTree(r.body());
    }

    /** Each attempt's row shows the signature headers the receiver got with that attempt, in full. */
    private static void signatureHeadersShown(List<WebElement> attempts) {
        assertEquals(attempts.size(), Platform.SIGNATURES.size(), "hooks received: " + Platform.SIGNATURES);
        for (int i = 0; i < attempts.size(); i++) {
            WebElement cell = attempts.get(i).findElement(By.cssSelector("td.headers"));
            assertEquals(List.of("signature", "signature-certificate-url"),
                    cell.findElements(By.tagName("dt")).stream().map(WebElement::getText).toList(), cell.getText());
            List<WebElement> values = cell.findElements(By.tagName("dd"));
            assertEquals(Platform.SIGNATURES.get(i), values.get(0).getText(), "attempt " + (i + 1));
            assertTrue(values.get(1).getText().startsWith("https://")
                    && values.get(1).getText().endsWith("/platform/hooks/certificate/"), values.get(1).getText());
        }
    }

    private static JsonNode hook(String path) throws Exception {
        return call("GET", "http://127.0.0.1:" + Platform.hookPort + path, Platform.OPERATOR_KEY, null);
    }

    private static JsonNode management(String path) throws Exception {
        return call("GET", "http://127.0.0.1:" + Platform.managementPort + path, Platform.OPERATOR_KEY, null);
    }

    private static JsonNode upload(String path) throws Exception {
        return call("GET", "http://127.0.0.1:" + Platform.uploadPort + path, Platform.OPERATOR_KEY, null);
    }

    /**
     * As an integrator would: a self-signed certificate and a client registered for acme.example, a token asked for
     * with a signed request, a user registered with upload-service, then a PNG uploaded with the token. Returns its
     * message id.
     */
    private static long uploadFile(String account, String name) throws Exception {
        String management = "http://127.0.0.1:" + Platform.managementPort;
        KeyPair keys = KeyPairs.ecP256();
        X509Certificate cert = CertificateBuilder.selfSigned(keys, "acme.example",
                Instant.now().plus(Duration.ofDays(30)), "acme.example");
        String certificate = call("POST", management + "/admin/v1/accounts/" + account + "/certificates",
                Platform.OPERATOR_KEY, JSON.writeValueAsString(Map.of("certificate", Pem.toPem(cert))))
                .path("certificate_uuid").asText();
        String client = call("POST", management + "/admin/v1/accounts/" + account + "/clients", Platform.OPERATOR_KEY,
                JSON.writeValueAsString(Map.of("name", "journey"))).path("client_id").asText();
        byte[] body = JSON.writeValueAsBytes(Map.of("client_id", client, "fqdn", "acme.example", "timestamp",
                Instant.now().truncatedTo(ChronoUnit.SECONDS).toString()));
        HttpRequest.Builder token = HttpRequest.newBuilder(URI.create(management
                + "/platform/management/token/issue/")).header("Content-Type", "application/json")
                .header("SignatureCertUUID", certificate).POST(HttpRequest.BodyPublishers.ofByteArray(body));
        new ManagementRequestSigner(keys.getPrivate()).headers(body, false).forEach(token::header);
        HttpResponse<String> issued = HTTP.send(token.build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, issued.statusCode(), issued.body());
        String accessToken = JSON.readTree(issued.body()).path("access_token").asText();
        call("POST", "http://127.0.0.1:" + Platform.uploadPort + "/admin/v1/users", Platform.OPERATOR_KEY,
                JSON.writeValueAsString(Map.of("auth_id", "u42", "business_id", "4242")));

        String boundary = "journey" + System.nanoTime();
        ByteArrayOutputStream form = new ByteArrayOutputStream();
        for (String[] field : new String[][]{{"auth_id", "u42"}, {"business_id", "4242"}, {"message_type", "1"},
                {"message_body", "the receipt"}}) {
            form.write(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + field[0] + "\"\r\n\r\n"
                    + field[1] + "\r\n").getBytes(StandardCharsets.UTF_8));
        }
        form.write(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + name
                + "\"\r\nContent-Type: image/png\r\n\r\n").getBytes(StandardCharsets.UTF_8));
        byte[] png = new byte[1500];
        System.arraycopy(new byte[]{(byte) 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A}, 0, png, 0, 8);
        form.write(png);
        form.write(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
        // HTTP/1.1 as integrators send it: the JDK client otherwise offers an h2c upgrade with the body, which the
        // upload endpoint's body reader does not take (INCOMPLETE_BODY)
        HttpResponse<String> uploaded = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + Platform.uploadPort + "/v1.0/log_file_from_user/")).version(HttpClient.Version.HTTP_1_1)
                .header("Authorization", "Bearer " + accessToken).header("client-id", client)
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofByteArray(form.toByteArray())).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, uploaded.statusCode(), uploaded.body());
        return JSON.readTree(uploaded.body()).path("message_id").asLong();
    }

    private static String createAccount(String name, String fqdn, String businessId) throws Exception {
        String webhook = "http://127.0.0.1:" + Platform.receiverPort + "/hooks/acme";
        return call("POST", "http://127.0.0.1:" + Platform.managementPort + "/admin/v1/accounts",
                Platform.OPERATOR_KEY, JSON.writeValueAsString(java.util.Map.of("name", name, "fqdn", fqdn,
                        "business_id", businessId, "webhook_url", webhook)))
                .path("account_id").asText();
    }

    private static void sendEvent(String account, long messageId) throws Exception {
        java.util.Map<String, Object> e = new java.util.LinkedHashMap<>();
        e.put("account_id", account);
        e.put("user_id", "u42");
        e.put("conversation_number", 7);
        e.put("message_body", "{\"text\":\"hello\",\"type\":\"TEXT\"}");
        e.put("message_id", messageId);
        e.put("sender", "user");
        e.put("timestamp", "2026-11-22T10:00:00.000Z");
        e.put("metadata", java.util.Map.of("channel", "web"));
        call("POST", "http://127.0.0.1:" + Platform.hookPort + "/internal/v1/events", Platform.HOOK_INTERNAL_KEY,
                JSON.writeValueAsString(e));
    }
}
