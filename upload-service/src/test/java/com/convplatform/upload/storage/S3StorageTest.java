package com.convplatform.upload.storage;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.convplatform.load.upload.PlatformStubs;
import com.convplatform.upload.PlatformStubsResource;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;

/** The whole service with {@code upload.storage.kind=s3}: uploads go to the (signature-checking) loopback S3. */
@QuarkusTest
@TestProfile(S3StorageTest.S3Storage.class)
@QuarkusTestResource(PlatformStubsResource.class)
class S3StorageTest {
    public static class S3Storage implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("upload.storage.kind", "s3");
        }

        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(LoopbackS3Resource.class));
        }
    }

    static final byte[] PNG = png(1024 * 1024 + 17);

    static byte[] png(int size) {
        byte[] b = new byte[size];
        new Random(size).nextBytes(b);
        System.arraycopy(new byte[]{(byte) 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A}, 0, b, 0, 8);
        return b;
    }

    @BeforeEach
    void registeredUser() {
        given().header("Authorization", "Bearer test-operator-key").contentType(ContentType.JSON)
                .body(Map.of("auth_id", "s3user", "business_id", "1001")).post("/admin/v1/users");
        LoopbackS3Resource.server.failWith = 0;
    }

    static io.restassured.response.ValidatableResponse upload(String name) {
        return given().header("Authorization", "Bearer " + PlatformStubs.token()).header("client-id", "client-1")
                .multiPart("auth_id", "s3user").multiPart("business_id", "1001").multiPart("message_type", "1")
                .multiPart("file", name, PNG, "image/png").post("/v1.0/log_file_from_user/").then();
    }

    @Test
    void anUploadIsStoredInTheBucketAndServedFromIt() {
        String url = upload("shared.png").statusCode(200).extract().path("file_url");
        String path = url.substring(url.indexOf("/files/"));
        String id = path.split("/")[2];
        assertArrayEquals(PNG, LoopbackS3Resource.server.object(LoopbackS3Resource.BUCKET, LoopbackS3Resource.PREFIX
                + id).orElseThrow(), "the object in the bucket");
        assertFalse(Files.exists(Paths.get("target/test-data/files", id)), "nothing on local disk");
        byte[] served = given().get(path).then().statusCode(200).contentType("image/png")
                .header("Content-Length", String.valueOf(PNG.length)).extract().asByteArray();
        assertArrayEquals(PNG, served);
        assertTrue(LoopbackS3Resource.server.received.stream()
                .anyMatch(r -> r.method().equals("GET") && r.rawPath().endsWith("/" + id) && r.status() == 200));

        // gone from the bucket: the download is a plain 404, not an error
        LoopbackS3Resource.server.removeObject(LoopbackS3Resource.BUCKET, LoopbackS3Resource.PREFIX + id);
        given().get(path).then().statusCode(404).body("error_code", equalTo("FILE_NOT_FOUND"));
    }

    @Test
    void whenTheBucketFailsTheUploadFailsAndTheNextOneSucceeds() {
        LoopbackS3Resource.server.failWith = 503;
        upload("refused.png").statusCode(500).body("error_code", equalTo("INTERNAL_ERROR"));
        LoopbackS3Resource.server.failWith = 0;
        upload("accepted.png").statusCode(200);
    }

    @Test
    void anErasureWhoseFilesCannotBeDeletedIsRecordedAtOnceAndFinishesOnceTheyCan() {
        given().header("Authorization", "Bearer test-operator-key").contentType(ContentType.JSON)
                .body(Map.of("auth_id", "s3erased", "business_id", "1001")).post("/admin/v1/users").then()
                .statusCode(201);
        String url = given().header("Authorization", "Bearer " + PlatformStubs.token()).header("client-id", "client-1")
                .multiPart("auth_id", "s3erased").multiPart("business_id", "1001").multiPart("message_type", "1")
                .multiPart("file", "erased.png", new java.io.ByteArrayInputStream(PNG), "image/png")
                .post("/v1.0/log_file_from_user/").then().statusCode(200).extract().path("file_url");
        String object = LoopbackS3Resource.PREFIX + url.substring(url.indexOf("/files/")).split("/")[2];
        LoopbackS3Resource.server.failWith = 503;
        String refusal = given().header("Authorization", "Bearer test-operator-key").contentType(ContentType.JSON)
                .body(Map.of("auth_id", "s3erased", "business_id", "1001")).post("/admin/v1/erasures").then()
                .statusCode(503).body("error_code", equalTo("ERASURE_INCOMPLETE")).extract().path("error_message");
        java.util.regex.Matcher named = java.util.regex.Pattern.compile("erasure ([0-9a-f-]{36}) is recorded")
                .matcher(refusal);
        assertTrue(named.find(), refusal);
        String erasure = "/admin/v1/erasures/" + named.group(1);
        // recorded before anything was removed, the registration gone with it; the message and its file still there
        given().header("Authorization", "Bearer test-operator-key").get(erasure).then().statusCode(200)
                .body("status", equalTo("IN_PROGRESS")).body("messages", equalTo(0));
        given().header("Authorization", "Bearer test-operator-key").get("/admin/v1/users?business_id=1001").then()
                .statusCode(200).body("auth_id", org.hamcrest.Matchers.not(org.hamcrest.Matchers.hasItem("s3erased")));
        assertTrue(LoopbackS3Resource.server.object(LoopbackS3Resource.BUCKET, object).isPresent());
        LoopbackS3Resource.server.failWith = 0;
        // the erasure's own pass deletes the file and its message once the bucket answers (its second pass at
        // hook-service comes two outbox leases later: ErasureTest)
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).untilAsserted(() -> given()
                .header("Authorization", "Bearer test-operator-key").get(erasure).then().statusCode(200)
                .body("messages", equalTo(1)).body("files", equalTo(1)).body("hook_passes", equalTo(1))
                .body("last_error", org.hamcrest.Matchers.nullValue()));
        assertFalse(LoopbackS3Resource.server.object(LoopbackS3Resource.BUCKET, object).isPresent(),
                "the file, deleted by the erasure's own pass");
    }
}
