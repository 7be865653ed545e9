package com.convplatform.upload.message;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.convplatform.load.upload.PlatformStubs;
import com.convplatform.upload.PlatformStubsResource;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;

/**
 * The operator API's list of an account's uploads ({@code GET /admin/v1/messages?account_id=}) over HTTP: files
 * uploaded through the real endpoint by two accounts, the list of one newest first with each file's name, type and size,
 * handed off once the intake stand-in took its event and pending while it refuses it; pages; every refusal.
 */
@QuarkusTest
@QuarkusTestResource(PlatformStubsResource.class)
class MessageAdminTest {
    static final String OPERATOR = "Bearer test-operator-key";
    private String account;
    private String refused;

    @BeforeEach
    void registeredUser() {
        given().header("Authorization", OPERATOR).contentType(ContentType.JSON)
                .body(Map.of("auth_id", "user42", "business_id", "1001")).post("/admin/v1/users");
        PlatformStubs.intakeDown = false;
        PlatformStubs.noBatchIntake = false;
        account = "acct-" + UUID.randomUUID();
    }

    @AfterEach
    void acceptEverything() {
        if (refused != null) {
            PlatformStubs.REFUSED.remove(refused);
        }
    }

    /** Uploads a file as a client of {@code accountId}; returns its message id. */
    static long upload(String accountId, String name, byte[] content, String type) {
        return ((Number) given().header("Authorization", "Bearer " + PlatformStubs.token(PlatformStubs.KEY,
                PlatformStubs.KID, "ES256", Map.of("account_id", accountId))).header("client-id", "client-1")
                .multiPart("auth_id", "user42").multiPart("business_id", "1001").multiPart("message_type", type)
                .multiPart("file", name, content, "application/octet-stream").multiPart("message_body", "hi")
                .post(UploadTest.PATH).then().statusCode(200).extract().path("message_id")).longValue();
    }

    static ValidatableResponse messages(Map<String, ?> query) {
        return given().header("Authorization", OPERATOR).queryParams(query).get("/admin/v1/messages").then();
    }

    @Test
    void anAccountsUploadsAreListedNewestFirstHandedOffOrPending() throws Exception {
        Instant start = Instant.now().minusSeconds(1);
        long photo = upload(account, "holiday photo.png", UploadTest.PNG, "1");
        long scan = upload(account, "scan.jpg", UploadTest.JPEG, "1");
        long letter = upload(account, "letter.docx", UploadTest.docx(), "52");
        upload("acct-" + UUID.randomUUID(), "other.png", UploadTest.PNG, "1"); // another account's

        await().atMost(Duration.ofSeconds(30)).until(() -> messages(Map.of("account_id", account)).extract()
                .<List<String>>path("handoff").stream().allMatch("HANDED_OFF"::equals));
        messages(Map.of("account_id", account)).statusCode(200).body("$", hasSize(3))
                .body("message_id", contains((int) letter, (int) scan, (int) photo))
                .body("file_name", contains("letter.docx", "scan.jpg", "holiday_photo.png"))
                .body("content_type", contains(
                        "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "image/jpeg",
                        "image/png"))
                .body("message_type", contains(52, 1, 1))
                .body("size_bytes", contains(UploadTest.docx().length, UploadTest.JPEG.length, UploadTest.PNG.length))
                .body("account_id", everyItem(equalTo(account))).body("business_id", everyItem(equalTo("1001")))
                .body("auth_id", everyItem(equalTo("user42"))).body("handoff_attempts", everyItem(equalTo(0)))
                .body("handoff_last_error", everyItem(nullValue()))
                .body("[2].created_at", matchesPattern("\\d{4}-\\d{2}-\\d{2}T.*Z"));
        Instant created = Instant.parse(messages(Map.of("account_id", account)).extract().path("[2].created_at"));
        assertTrue(!created.isBefore(start) && !created.isAfter(Instant.now()), "created at " + created);

        // hook-service refuses this account's events: the next upload waits in the outbox, pending, with the error
        refused = account;
        PlatformStubs.REFUSED.add(refused);
        long waiting = upload(account, "waiting.png", UploadTest.PNG, "1");
        await().atMost(Duration.ofSeconds(30)).until(() -> ((Number) messages(Map.of("account_id", account, "limit",
                1)).extract().path("[0].handoff_attempts")).intValue() >= 1);
        messages(Map.of("account_id", account, "limit", 1)).statusCode(200)
                .body("[0].message_id", equalTo((int) waiting)).body("[0].handoff", equalTo("PENDING"))
                .body("[0].handoff_last_error", containsString("INVALID_EVENT"));
        messages(Map.of("account_id", account)).body("handoff", contains("PENDING", "HANDED_OFF", "HANDED_OFF",
                "HANDED_OFF"));
        // once it is taken, it is handed off
        PlatformStubs.REFUSED.remove(refused);
        await().atMost(Duration.ofSeconds(30)).until(() -> "HANDED_OFF".equals(messages(Map.of("account_id",
                account, "limit", 1)).extract().path("[0].handoff")));
    }

    @Test
    void pagesFollowEachOtherByTheLastMessageId() {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(0, upload(account, "p" + i + ".png", UploadTest.PNG, "1"));
        }
        List<Long> seen = new ArrayList<>();
        String before = null;
        while (true) {
            List<Number> page = messages(before == null
                    ? Map.of("account_id", account, "limit", 2)
                    : Map.of("account_id", account, "limit", 2, "before_id", before)).statusCode(200).extract()
                    .path("message_id");
            page.forEach(n -> seen.add(n.longValue()));
            if (page.size() < 2) {
                break;
            }
            before = String.valueOf(page.get(1));
        }
        assertEquals(ids, seen, "each message once, newest first");
        messages(Map.of("account_id", account)).body("$", hasSize(5));
        messages(Map.of("account_id", "acct-never-uploaded")).statusCode(200).body("$", empty());
        messages(Map.of("account_id", account, "limit", "")).statusCode(200).body("$", hasSize(5));
    }

    @Test
    void everyRefusalHasItsStatusAndCode() {
        given().get("/admin/v1/messages?account_id=a").then().statusCode(401).body("error_code",
                equalTo("UNAUTHORIZED"));
        given().header("Authorization", "Bearer nope").get("/admin/v1/messages?account_id=a").then().statusCode(401)
                .body("error_code", equalTo("UNAUTHORIZED"));
        refused(messages(Map.of()), "ACCOUNT_ID_REQUIRED");
        refused(messages(Map.of("account_id", " ")), "ACCOUNT_ID_REQUIRED");
        refused(messages(Map.of("account_id", "a".repeat(65))), "INVALID_ACCOUNT_ID");
        for (String limit : new String[]{"0", "1001", "x", "-1"}) {
            refused(messages(Map.of("account_id", "a", "limit", limit)), "INVALID_LIMIT");
        }
        for (String before : new String[]{"0", "-3", "abc", "1.5", "99999999999999999999"}) {
            refused(messages(Map.of("account_id", "a", "before_id", before)), "INVALID_CURSOR");
        }
        refused(messages(Map.of("business_id", "1001")), "UNKNOWN_PARAMETER");
        refused(given().header("Authorization", OPERATOR).get("/admin/v1/messages?account_id=a&account_id=b")
                .then(), "REPEATED_PARAMETER");
    }

    @Test
    void theOpenApiDocumentDescribesTheParametersTheMessageAndTheRefusals() {
        given().get("/q/openapi?format=json").then().statusCode(200)
                .body("paths.'/admin/v1/messages'.get.parameters.name", hasItems("account_id", "limit", "before_id"))
                .body("paths.'/admin/v1/messages'.get.responses.'400'.description", containsString("INVALID_CURSOR"))
                .body("paths.'/admin/v1/messages'.get.responses.'401'.content.'application/json'.schema.$ref",
                        equalTo("#/components/schemas/Error"))
                .body("components.schemas.MessageView.properties.handoff.enum", hasItems("HANDED_OFF", "PENDING"))
                .body("components.schemas.MessageView.properties.file_name.examples[0]",
                        equalTo("holiday_photo.png"))
                .body("paths.'/admin/v1/outbox'.get.responses.'200'.content.'application/json'.schema.$ref",
                        not(nullValue()));
    }

    static void refused(ValidatableResponse r, String code) {
        r.statusCode(400).contentType(ContentType.JSON).body("error_code", equalTo(code))
                .body("error_message", not(nullValue()));
    }
}
