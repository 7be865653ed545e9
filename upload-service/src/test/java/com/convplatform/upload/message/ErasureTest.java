package com.convplatform.upload.message;

import static com.convplatform.upload.message.UploadTest.PATH;
import static com.convplatform.upload.message.UploadTest.PNG;
import static com.convplatform.upload.message.UploadTest.authed;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import com.convplatform.load.upload.PlatformStubs;
import com.convplatform.testsupport.ManagementInterface;
import com.convplatform.upload.PlatformStubsResource;
import com.convplatform.upload.erasure.Erasures;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * An operator erases an upload user (a privacy request): their registration, messages, stored files and waiting events
 * go here, hook-service is asked twice to remove their deliveries, and the erasure is recorded with who asked and what
 * it removed, naming the user only by a hash. Afterwards no table holds the user's auth_id, and no file of theirs is
 * stored; another user of the same business keeps everything.
 */
@QuarkusTest
@QuarkusTestResource(PlatformStubsResource.class)
public class ErasureTest {
    private static final String OPERATOR = "Bearer test-operator-key";

    @Inject
    DataSource dataSource;

    /** Every pooled session waits at most 30 s for a lock, and is ended after 60 s idle inside a transaction. */
    @Test
    void theDatabaseSessionsHaveTheirTimeLimits() throws Exception {
        com.convplatform.testsupport.PostgresTestResource.assertSessionLimits(dataSource);
    }

    @AfterEach
    void hookUp() {
        PlatformStubs.erasureDown = false;
    }

    @Test
    void anErasureLeavesNothingOfTheUserBehindAndIsRecorded() throws Exception {
        String gone = "erase" + System.nanoTime();
        String kept = "keep" + System.nanoTime();
        register(gone);
        register(kept);
        List<Long> goneMessages = new ArrayList<>();
        List<String> goneFiles = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            var r = uploadAs(gone, "holiday-" + i + ".png");
            goneMessages.add(((Number) r.path("message_id")).longValue());
            goneFiles.add(r.path("file_url"));
        }
        String keptFile = uploadAs(kept, "mine.png").path("file_url");
        int erasuresBefore = PlatformStubs.ERASURES.size();

        var record = given().header("Authorization", OPERATOR).contentType(ContentType.JSON)
                .body(Map.of("business_id", "1001", "auth_id", gone)).post("/admin/v1/erasures").then()
                .statusCode(201).body("business_id", equalTo("1001"))
                .body("auth_id_sha256", equalTo(Erasures.sha256(gone))).body("requested_by", equalTo("operator-key"))
                .body("messages", equalTo(3)).body("files", equalTo(3)).body("hook_passes", equalTo(1))
                .body("hook_rows", equalTo(3)).body("status", equalTo("IN_PROGRESS"))
                .body("last_error", nullValue()).body(not(org.hamcrest.Matchers.containsString(gone))).extract();
        String id = record.path("erasure_id");

        // hook-service was asked for exactly these messages of the account (another test's erasure may pass meanwhile)
        String theirs = "\"message_ids\":" + goneMessages.toString().replace(" ", "");
        String call = PlatformStubs.ERASURES.stream().skip(erasuresBefore).filter(c -> c.contains(theirs)).findFirst()
                .orElseThrow(() -> new AssertionError(theirs + " not among " + PlatformStubs.ERASURES));
        for (long m : goneMessages) {
            assertTrue(call.contains(String.valueOf(m)), call);
        }
        assertTrue(call.contains("\"account_id\":\"account-1\""), call);

        // the files are gone, from the store and the download path; the other user's stays
        for (String url : goneFiles) {
            String path = URI.create(url).getPath();
            given().get(path).then().statusCode(404).body("error_code", equalTo("FILE_NOT_FOUND"));
            assertFalse(Files.exists(Path.of("target/test-data/files", path.split("/")[2])), path);
        }
        given().get(URI.create(keptFile).getPath()).then().statusCode(200);

        // the user may no longer upload: the registration went first
        authed().multiPart("auth_id", gone).multiPart("business_id", "1001").multiPart("message_type", "1")
                .multiPart("file", "again.png", PNG, "image/png").post(PATH).then().statusCode(403)
                .body("error_code", equalTo("USER_NOT_REGISTERED"));

        // no table holds the user's auth_id (the erasure record holds its hash)
        Map<String, Long> left = rowsMentioning(gone);
        assertTrue(left.values().stream().allMatch(n -> n == 0), "rows that still hold the user: " + left);
        assertTrue(rowsMentioning(kept).get("message") > 0, "the other user's messages stay");

        // the second pass, due two outbox leases later and made due now here, completes it
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            secondPassDue(dataSource, id);
            given().header("Authorization", OPERATOR).get("/admin/v1/erasures/" + id).then().statusCode(200)
                    .body("status", equalTo("COMPLETED")).body("hook_passes", equalTo(2))
                    .body("completed_at", notNullValue());
        });
        assertEquals(2, PlatformStubs.ERASURES.stream().skip(erasuresBefore).filter(c -> c.contains(theirs)).count(),
                "hook-service was asked twice");
        given().header("Authorization", OPERATOR).queryParam("business_id", "1001").queryParam("auth_id", gone)
                .get("/admin/v1/erasures").then().statusCode(200).body("$", hasSize(1))
                .body("[0].erasure_id", equalTo(id));
        assertTrue(rowsMentioning(gone).values().stream().allMatch(n -> n == 0),
                "the completed record keeps nothing of the user either");
    }

    @Test
    void aPassThatFailsAtHookServiceIsRecordedAndTriedAgain() {
        String user = "retry" + System.nanoTime();
        register(user);
        uploadAs(user, "a.png");
        double failedBefore = ManagementInterface.metric("upload_erasure_pass_failures_total", "");
        PlatformStubs.erasureDown = true;
        String id = given().header("Authorization", OPERATOR).contentType(ContentType.JSON)
                .body(Map.of("business_id", "1001", "auth_id", user)).post("/admin/v1/erasures").then()
                .statusCode(201).body("messages", equalTo(1)).body("hook_passes", equalTo(0))
                .body("last_error", notNullValue()).extract().path("erasure_id");
        assertTrue(ManagementInterface.metric("upload_erasure_pass_failures_total", "") > failedBefore,
                "the failed pass is counted");
        PlatformStubs.erasureDown = false;
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            secondPassDue(dataSource, id);
            given().header("Authorization", OPERATOR).get("/admin/v1/erasures/" + id).then()
                    .body("hook_passes", equalTo(2)).body("last_error", nullValue())
                    .body("status", equalTo("COMPLETED"));
        });
    }

    @Test
    void refusalsChangeNothing() {
        given().header("Authorization", OPERATOR).contentType(ContentType.JSON)
                .body(Map.of("business_id", "1001", "auth_id", "not valid!")).post("/admin/v1/erasures").then()
                .statusCode(400).body("error_code", equalTo("INVALID_AUTH_ID"));
        given().header("Authorization", OPERATOR).contentType(ContentType.JSON)
                .body(Map.of("business_id", "x1", "auth_id", "u1")).post("/admin/v1/erasures").then()
                .statusCode(400).body("error_code", equalTo("INVALID_BUSINESS_ID"));
        given().contentType(ContentType.JSON).body(Map.of("business_id", "1001", "auth_id", "u1"))
                .post("/admin/v1/erasures").then().statusCode(401).body("error_code", equalTo("UNAUTHORIZED"));
        given().header("Authorization", OPERATOR).get("/admin/v1/erasures/not-an-id").then().statusCode(404)
                .body("error_code", equalTo("ERASURE_NOT_FOUND"));
        given().header("Authorization", OPERATOR).queryParam("auth_id", "u1").get("/admin/v1/erasures").then()
                .statusCode(400).body("error_code", equalTo("BUSINESS_ID_REQUIRED"));
    }

    private static void register(String authId) {
        given().header("Authorization", OPERATOR).contentType(ContentType.JSON)
                .body(Map.of("auth_id", authId, "business_id", "1001")).post("/admin/v1/users").then()
                .statusCode(201);
    }

    private static io.restassured.response.ExtractableResponse<io.restassured.response.Response> uploadAs(
            String authId, String name) {
        return authed().multiPart("auth_id", authId).multiPart("business_id", "1001").multiPart("message_type", "1")
                .multiPart("file", name, PNG, "image/png").post(PATH).then().statusCode(200).extract();
    }

    /** Per table of the service's schema (partitions counted with their table), the rows whose text holds it. */
    /**
     * Makes the erasure's second pass at hook-service due now, once its first is made (the wait of two outbox leases
     * is the production setting's, and the least allowed).
     */
    public static void secondPassDue(DataSource dataSource, String erasureId) throws Exception {
        try (Connection c = dataSource.getConnection();
                java.sql.PreparedStatement s = c.prepareStatement("update erasure set next_pass_at = now() where id"
                        + " = ?::uuid and hook_passes = 1 and completed_at is null and next_pass_at > now()")) {
            s.setString(1, erasureId);
            s.executeUpdate();
        }
    }

    private Map<String, Long> rowsMentioning(String text) throws Exception {
        Map<String, Long> out = new LinkedHashMap<>();
        try (Connection c = dataSource.getConnection()) {
            List<String> tables = new ArrayList<>();
            try (ResultSet r = c.createStatement().executeQuery("select c.relname from pg_class c join pg_namespace n"
                    + " on n.oid = c.relnamespace where n.nspname = current_schema() and c.relkind in ('r', 'p') and"
                    + " not c.relispartition")) {
                while (r.next()) {
                    tables.add(r.getString(1));
                }
            }
            for (String t : tables) {
                try (var s = c.prepareStatement("select count(*) from " + t + " x where x::text like ?")) {
                    s.setString(1, "%" + text + "%");
                    try (ResultSet r = s.executeQuery()) {
                        r.next();
                        out.put(t, r.getLong(1));
                    }
                }
            }
        }
        return out;
    }
}
