package com.convplatform.upload.handoff;

import static com.convplatform.upload.message.UploadTest.PNG;
import static com.convplatform.upload.message.UploadTest.authed;
import static com.convplatform.upload.message.UploadTest.storedFiles;
import static io.restassured.RestAssured.given;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.oneOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.convplatform.load.upload.PlatformStubs;
import com.convplatform.support.GroupCommit;
import com.convplatform.testsupport.LogCapture;
import com.convplatform.testsupport.ManagementInterface;
import com.convplatform.testsupport.RelayedPostgresTestResource;
import com.convplatform.upload.PlatformStubsResource;
import com.convplatform.upload.erasure.Erasures;
import com.convplatform.upload.quota.UploadQuota;

import io.agroal.api.AgroalDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;

/**
 * PostgreSQL out of reach and back (test-support's relay between the service and its database, closing every
 * connection and each new one): an upload is answered 503 DATABASE_UNAVAILABLE with Retry-After and leaves no file
 * behind; the outbox poll (every 0.2 s here) and the look for erasures due a pass (every 0.5 s) count each failure and
 * warn once, not an error and a stack trace per try, nothing logs an error, and a scrape shows the outbox's last
 * sampled gauges; once the database is back, an upload is
 * accepted and handed on with no restart, and the log says that polling works again.
 */
@QuarkusTest
@TestProfile(RelayedPostgresTestResource.Profile.class)
@QuarkusTestResource(PlatformStubsResource.class)
class DatabaseOutageTest {
    private static final Duration BACKGROUND = Duration.ofSeconds(30);

    @Inject
    MeterRegistry metrics;

    @Inject
    UploadQuota quota;

    @Inject
    AgroalDataSource pool;

    private double failures(String counter) {
        return metrics.get(counter).counter().count();
    }

    @Test
    void anOutageIsAnsweredCountedAndWarnedOnceAndTheServiceComesBackByItself() throws IOException {
        registerUser();
        handedOn(upload("before.png").statusCode(200));

        try (LogCapture outbox = LogCapture.of(OutboxSender.class.getName(), Level.INFO);
                LogCapture erasures = LogCapture.of(Erasures.class.getName(), Level.INFO);
                LogCapture errors = LogCapture.errors()) {
            double polls = failures("upload.outbox.poll.failures");
            double looks = failures("upload.erasure.check.failures");
            long files = storedFiles();
            RelayedPostgresTestResource.relay.down();

            upload("during.png").statusCode(503).header("Retry-After", "5").contentType(ContentType.JSON)
                    .body("error_code", equalTo("DATABASE_UNAVAILABLE"))
                    .body("error_message", containsString("the request changed nothing"));
            assertEquals(files, storedFiles(), "the refused upload's file is not kept");
            await("three failed polls and looks").atMost(BACKGROUND)
                    .until(() -> failures("upload.outbox.poll.failures") >= polls + 3
                            && failures("upload.erasure.check.failures") >= looks + 3);
            assertOneWarning(outbox, "Polling the outbox failed", "upload_outbox_poll_failures_total");
            assertOneWarning(erasures, "Looking for erasures to go on with failed",
                    "upload_erasure_check_failures_total");
            assertEquals(List.of(), errors.summaries(), "an outage is warned of, not logged as errors");
            // a scrape reads no database: the outbox's gauges show their last sample, not NaN from a failed read
            // (which, at the pool's 5 s acquisition time-out per gauge, would also outlast Prometheus' scrape)
            assertFalse(Double.isNaN(ManagementInterface.metric("upload_outbox_pending", "")));
            assertFalse(Double.isNaN(ManagementInterface.metric("upload_outbox_oldest_age_seconds", "")));
            assertTrue(ManagementInterface.metric("upload_outbox_poll_failures_total", "") >= 3);

            RelayedPostgresTestResource.relay.open();
            await("uploads accepted again").atMost(BACKGROUND)
                    .until(() -> upload("after.png").extract().statusCode() == 200);
            await().atMost(BACKGROUND).until(() -> outbox.messages().contains("Polling the outbox works again")
                    && erasures.messages().contains("Looking for erasures to go on with works again"));
        }
        await("the upload accepted after the outage is handed on").atMost(BACKGROUND)
                .until(() -> PlatformStubs.EVENTS.stream().anyMatch(e -> e.contains("/after.png")));
    }

    /**
     * A database that stops answering (a partition: the relay holds every byte and closes nothing) holds no upload past
     * the commit deadline (3 s in this profile). An upload first meets the database at its account's quota (on by
     * default): the one whose reservation was on its way and the one queued behind it are both answered
     * DATABASE_UNAVAILABLE (neither body was read; at most the first one's bytes count against the day's quota), keep
     * no file and are never logged; once the database answers, uploads go on.
     */
    @Test
    void aDatabaseThatStopsAnsweringHoldsNoUploadPastTheCommitDeadline() throws Exception {
        registerUser();
        handedOn(upload("before-freeze.png").statusCode(200));
        RelayedPostgresTestResource.liveConnections(pool, 4);
        long files = storedFiles();
        try (LogCapture warnings = LogCapture.of(GroupCommit.class.getName(), Level.INFO)) {
            RelayedPostgresTestResource.relay.freeze();
            try {
                for (String name : List.of("held.png", "queued.png")) {
                    upload(name).statusCode(503).header("Retry-After", "5")
                            .body("error_code", equalTo("DATABASE_UNAVAILABLE"));
                }
                assertEquals(files, storedFiles(), "no file is kept");
                assertTrue(warnings.messages().stream().anyMatch(m -> m.startsWith("upload-quota: the database has not"
                        + " answered a commit") && m.contains("platform.database.commit-deadline")),
                        warnings.messages().toString());
            } finally {
                RelayedPostgresTestResource.relay.open();
            }
        }
        await("uploads accepted again").atMost(BACKGROUND)
                .until(() -> upload("after-freeze.png").extract().statusCode() == 200);
        await().atMost(BACKGROUND)
                .until(() -> PlatformStubs.EVENTS.stream().anyMatch(e -> e.contains("/after-freeze.png")));
        assertFalse(PlatformStubs.EVENTS.stream().anyMatch(e -> e.contains("/held.png") || e.contains("/queued.png")),
                "never logged");
    }

    /**
     * What an upload reserved and did not use is given back without waiting for a database that does not answer (no
     * upload's thread is held by it), and is written once the database answers: nothing given back is lost.
     */
    @Test
    void aGiveBackWaitsForTheDatabaseOnNoUploadsThreadAndIsWrittenOnceItAnswers() throws Exception {
        String account = "give-back-" + System.nanoTime();
        RelayedPostgresTestResource.liveConnections(pool, 4);
        UploadQuota.Reservation reserved = quota.reserve(account, 5_000, true).get(BACKGROUND.toSeconds(), SECONDS);
        assertEquals(5_000, quota.use(account).bytes());
        RelayedPostgresTestResource.relay.freeze();
        try {
            assertTimeoutPreemptively(Duration.ofSeconds(5), () -> quota.giveBack(reserved, 3_000),
                    "a give-back does not wait for the database");
        } finally {
            RelayedPostgresTestResource.relay.open();
        }
        await("the give-back written").atMost(BACKGROUND).until(() -> quota.use(account).bytes() == 2_000);
    }

    private static void registerUser() {
        given().header("Authorization", "Bearer test-operator-key").contentType(ContentType.JSON)
                .body(Map.of("auth_id", "user42", "business_id", "1001")).post("/admin/v1/users").then()
                .statusCode(oneOf(200, 201, 409));
    }

    private static ValidatableResponse upload(String name) {
        return authed().multiPart("auth_id", "user42").multiPart("business_id", "1001").multiPart("message_type", "1")
                .multiPart("file", name, PNG, "image/png").post("/v1.0/log_file_from_user/").then();
    }

    private static void handedOn(ValidatableResponse accepted) {
        String url = accepted.extract().path("file_url");
        await().atMost(BACKGROUND).until(() -> PlatformStubs.EVENTS.stream().anyMatch(e -> e.contains(url)));
    }

    private static void assertOneWarning(LogCapture log, String start, String counter) {
        List<String> warnings = log.messages().stream().filter(m -> m.startsWith(start)).toList();
        assertEquals(1, warnings.size(), log.messages().toString());
        assertTrue(warnings.get(0).contains(counter), warnings.get(0));
    }
}
