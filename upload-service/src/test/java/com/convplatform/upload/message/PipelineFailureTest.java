package com.convplatform.upload.message;

import static com.convplatform.upload.message.UploadTest.PNG;
import static com.convplatform.upload.message.UploadTest.authed;
import static com.convplatform.upload.message.UploadTest.storedFiles;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.LogRecord;

import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Singleton;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.convplatform.testsupport.LogCapture;
import com.convplatform.upload.PlatformStubsResource;
import com.convplatform.upload.storage.FileStore;
import com.convplatform.upload.storage.LocalFileStore;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;

/**
 * No request left unanswered (issue 22): a failure anywhere in an upload's pipeline, an {@code Error} included, ends in
 * a 500 with an error body and a logged error, and leaves no file behind. The failure is injected by a file store that
 * throws for two file names (active in this test's profile only).
 */
@QuarkusTest
@TestProfile(PipelineFailureTest.FailingStore.class)
@QuarkusTestResource(PlatformStubsResource.class)
class PipelineFailureTest {
    public static class FailingStore implements QuarkusTestProfile {
        @Override
        public Set<Class<?>> getEnabledAlternatives() {
            return Set.of(ThrowingFileStore.class);
        }
    }

    /** The test's file store: an Error for "error.png", a RuntimeException for "bug.png", else the local store. */
    @Alternative
    @Singleton
    public static class ThrowingFileStore implements FileStore {
        private final FileStore local = new LocalFileStore("target/test-data/files");

        @Override
        public void put(String id, Path source) throws IOException {
            String next = NEXT.get(0);
            if (next.equals("error.png")) {
                throw new OutOfMemoryError("injected by the test's file store");
            } else if (next.equals("bug.png")) {
                throw new IllegalStateException("injected by the test's file store");
            }
            local.put(id, source);
        }

        @Override
        public Optional<InputStream> open(String id) throws IOException {
            return local.open(id);
        }

        @Override
        public void delete(String id) throws IOException {
            local.delete(id);
        }
    }

    /** The name of the file the next upload sends (the store sees only the temporary file). */
    static final List<String> NEXT = new CopyOnWriteArrayList<>(List.of("ok.png"));
    private LogCapture log;

    @BeforeEach
    void setUp() {
        given().header("Authorization", "Bearer test-operator-key").contentType(ContentType.JSON)
                .body(Map.of("auth_id", "user42", "business_id", "1001")).post("/admin/v1/users");
        log = LogCapture.errors();
    }

    @AfterEach
    void tearDown() {
        log.close();
        NEXT.set(0, "ok.png");
    }

    @ParameterizedTest
    @ValueSource(strings = {"error.png", "bug.png"})
    void aFailureInThePipelineIsAnswered500WithABodyAndLogged(String name) throws Exception {
        long before = storedFiles();
        NEXT.set(0, name);
        authed().multiPart("auth_id", "user42").multiPart("business_id", "1001").multiPart("message_type", "1")
                .multiPart("file", name, PNG, "image/png").post("/v1.0/log_file_from_user/").then().statusCode(500)
                .contentType(ContentType.JSON).body("error_code", equalTo("INTERNAL_ERROR"))
                .body("error_message", equalTo("The request could not be processed; it changed nothing"));
        await().atMost(Duration.ofSeconds(30)).until(() -> log.records().stream()
                .anyMatch(r -> r.getThrown() != null
                        && "injected by the test's file store".equals(root(r).getMessage())));
        assertEquals(before, storedFiles());
        // and the service goes on: the next upload is stored
        NEXT.set(0, "ok.png");
        authed().multiPart("auth_id", "user42").multiPart("business_id", "1001").multiPart("message_type", "1")
                .multiPart("file", "ok.png", PNG, "image/png").post("/v1.0/log_file_from_user/").then().statusCode(200);
        assertTrue(storedFiles() > before);
    }

    static Throwable root(LogRecord r) {
        Throwable t = r.getThrown();
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t;
    }
}
