package com.convplatform.upload.message;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;

import com.convplatform.load.upload.PlatformStubs;
import com.convplatform.upload.PlatformStubsResource;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.restassured.http.ContentType;

/**
 * Issue 22's unanswered uploads: twenty 10 MB CSV files of two-byte characters at once, against the built artifact
 * running with a 128 MB heap (quarkus.test.arg-line), are each answered 200. The CSV check reads the file in 8 KiB
 * pieces; when it read the whole file into memory, 7 of 20 such uploads at 256 MB were never answered.
 */
@QuarkusIntegrationTest
@QuarkusTestResource(PlatformStubsResource.class)
class SmallHeapCsvIT {
    @Test
    void twentyConcurrent10MbCsvUploadsAtA128MbHeapAreAllAnswered() throws Exception {
        given().header("Authorization", "Bearer test-operator-key").contentType(ContentType.JSON)
                .body(Map.of("auth_id", "user42", "business_id", "1001")).post("/admin/v1/users");
        String row = "Müller;Zoë;façade;señor;naïve;déjà vu\n"; // letters of two bytes in UTF-8
        byte[] csv = row.repeat(10_000_000 / row.getBytes(StandardCharsets.UTF_8).length)
                .getBytes(StandardCharsets.UTF_8);
        ExecutorService pool = Executors.newFixedThreadPool(20);
        try {
            List<Future<Integer>> answers = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                int n = i;
                answers.add(pool.submit(() -> given().header("Authorization", "Bearer " + PlatformStubs.token())
                        .header("client-id", "client-1").multiPart("auth_id", "user42")
                        .multiPart("business_id", "1001").multiPart("message_type", "52")
                        .multiPart("file", "big-" + n + ".csv", csv, "text/csv").post("/v1.0/log_file_from_user/")
                        .statusCode()));
            }
            List<Integer> statuses = new ArrayList<>();
            for (Future<Integer> f : answers) {
                statuses.add(f.get());
            }
            assertEquals(List.of(200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200,
                    200, 200, 200), statuses);
        } finally {
            pool.shutdownNow();
        }
    }
}
