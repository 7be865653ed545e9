package com.convplatform.upload.quota;

import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.convplatform.testsupport.LogCapture;
import com.convplatform.upload.PlatformStubsResource;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * An upload that asks the quota once its writer has stopped (the service is stopping) is answered, 503
 * QUOTA_UNAVAILABLE with Retry-After, its body unread: never left without an answer, and with no ERROR logged (a
 * replica that stops is expected).
 */
@QuarkusTest
@QuarkusTestResource(PlatformStubsResource.class)
@TestProfile(QuotaStoppedTest.Stopping.class)
class QuotaStoppedTest {
    /** Its own application: this test stops the quota's writer. */
    public static class Stopping extends QuotaTest.Small {
    }

    @Inject
    UploadQuota quota;

    @Test
    void anUploadThatAsksAStoppedQuotaIsAnswered503() {
        quota.stop();
        try (LogCapture errors = LogCapture.errors()) {
            QuotaTest.upload("quota-stopped-" + System.nanoTime(), "a.png", 500).then().statusCode(503)
                    .header("Retry-After", "5").body("error_code", equalTo("QUOTA_UNAVAILABLE"));
            assertEquals(List.of(), errors.summaries(), "a replica that stops is expected, not an error");
        }
    }
}
