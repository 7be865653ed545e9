package com.convplatform.upload.retention;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Random;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.convplatform.load.upload.PlatformStubs;
import com.convplatform.support.Retention;
import com.convplatform.testsupport.ManagementInterface;
import com.convplatform.upload.PlatformStubsResource;
import com.convplatform.upload.handoff.OutboxRows;
import com.convplatform.upload.storage.FileIds;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;

/**
 * Retention with the clock moved past the period: a day partition of messages is dropped with its stored files, and
 * a day whose event still waits for hook-service is kept, with its file, until that event is handed on. A profile of
 * its own: the run drops today's partition from under the application, so no other test class shares it.
 */
@QuarkusTest
@QuarkusTestResource(PlatformStubsResource.class)
@TestProfile(RetentionTest.Own.class)
class RetentionTest {
    public static class Own implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("upload.retention.period", "P30D");
        }
    }

    @Inject
    UploadRetention retention;

    @Inject
    DataSource dataSource;

    @Test
    void aDayPastThePeriodIsDroppedWithItsFilesAndADayWithAWaitingEventIsKept() throws Exception {
        given().header("Authorization", "Bearer test-operator-key").contentType(ContentType.JSON)
                .body(Map.of("auth_id", "user42", "business_id", "1001")).post("/admin/v1/users");
        byte[] png = new byte[1000];
        new Random(1).nextBytes(png);
        System.arraycopy(new byte[]{(byte) 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A}, 0, png, 0, 8);
        String url = given().header("Authorization", "Bearer " + PlatformStubs.token()).header("client-id", "client-1")
                .multiPart("auth_id", "user42").multiPart("business_id", "1001").multiPart("message_type", "1")
                .multiPart("file", "old.png", png, "image/png").post("/v1.0/log_file_from_user/").then()
                .statusCode(200).extract().path("file_url");
        String path = URI.create(url).getPath();
        Path file = Path.of("target/test-data/files", path.split("/")[2]);
        assertTrue(Files.exists(file));

        // yesterday: a message whose event still waits in the outbox (hook-service down since)
        Instant yesterday = Instant.now().minus(Duration.ofDays(1));
        long waiting = OutboxRows.message("waits for hook-service", yesterday);
        OutboxRows.insert(waiting, yesterday, null, null, Instant.now().plus(Duration.ofHours(1)), null, null, 9,
                "hook-service answered 503");

        // the quotas' count of today (the upload above), and one of a day inside the period at the run's time
        LocalDate inside = LocalDate.now(ZoneOffset.UTC).plusDays(10);
        try (Connection c = dataSource.getConnection();
                PreparedStatement s = c.prepareStatement("insert into"
                        + " upload_usage values ('account-1', ?, 1, 1, now(), 1)")) {
            s.setObject(1, inside);
            s.executeUpdate();
        }
        assertEquals(2, usageDays());

        // files no message names: stored by uploads whose message was never committed (a crash between the two),
        // three days ago and just now; and the form's temporary files, one left two days ago, one being written
        Path files = Path.of("target/test-data/files");
        Path oldOrphan = Files.write(files.resolve(FileIds.next(
                java.time.Clock.fixed(Instant.now().minus(Duration.ofDays(3)), ZoneOffset.UTC))), png);
        Path newOrphan = Files.write(files.resolve(FileIds.next(java.time.Clock.systemUTC())), png);
        Path incoming = Files.createDirectories(Path.of("target/test-data/incoming"));
        Path leftOver = Files.write(incoming.resolve("left-by-a-crash"), png);
        Files.setLastModifiedTime(leftOver, java.nio.file.attribute.FileTime.from(Instant.now().minus(
                Duration.ofDays(2))));
        Path inFlight = Files.write(incoming.resolve("being-written"), png);

        Instant later = Instant.now().plus(Duration.ofDays(31).plusHours(1));
        Retention.Report report = retention.runAt(later);
        assertFalse(Files.exists(oldOrphan), "made over a day before the oldest day kept (yesterday's): deleted");
        assertTrue(Files.exists(newOrphan), "made after it: kept");
        assertFalse(Files.exists(leftOver), "a temporary file two days old: deleted");
        assertTrue(Files.exists(inFlight), "one being written: kept");
        Files.delete(newOrphan);
        Files.delete(inFlight);
        assertEquals(1, usageDays(), "today's quota count is past the period, the later day's is kept");

        String today = "message_p" + LocalDate.now(ZoneOffset.UTC).toString().replace("-", "");
        String dayBefore = "message_p" + LocalDate.ofInstant(yesterday, ZoneOffset.UTC).toString().replace("-", "");
        assertTrue(report.dropped().contains(today), "today's partition is past the period: " + report);
        assertTrue(report.kept().contains(dayBefore), "yesterday's waits for its event: " + report);
        assertFalse(Files.exists(file), "the dropped day's file is deleted with it");
        given().get(path).then().statusCode(404).body("error_code", equalTo("FILE_NOT_FOUND"));
        assertEquals(1, OutboxRows.ofMessage(waiting), "the waiting event is still there");

        String metrics = given().get(ManagementInterface.url("/q/metrics")).then().statusCode(200).extract().asString();
        double lastRun = metrics.lines().filter(l -> l.startsWith("retention_last_run_seconds "))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).findFirst().orElse(-1);
        assertEquals(later.getEpochSecond(), lastRun, 0.5, "retention_last_run_seconds is the run's time");
        assertTrue(metrics.lines().anyMatch(l -> l.startsWith("retention_partitions_dropped_total{table=\"message\"}")
                && !l.endsWith(" 0.0")), "the drop is counted");
        assertTrue(metrics.lines().anyMatch(l -> l.startsWith("retention_files_deleted_total") && !l.endsWith(" 0.0")),
                "the deleted files are counted");

        // once the event is handed on, the next run drops that day too
        OutboxRows.remove(List.of(waiting));
        assertTrue(retention.runAt(later.plusSeconds(3600)).dropped().contains(dayBefore));
    }

    private long usageDays() throws Exception {
        try (Connection c = dataSource.getConnection();
                ResultSet r = c.createStatement().executeQuery("select count(*) from upload_usage where account_id"
                        + " = 'account-1'")) {
            r.next();
            return r.getLong(1);
        }
    }
}
