package com.convplatform.upload.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.convplatform.upload.UploadConfigs;
import com.convplatform.upload.config.UploadConfig;

import io.quarkus.runtime.configuration.ConfigurationException;

/**
 * The choice of store from the real property names (read through the {@link UploadConfig} mapping, as the service
 * reads them), and the start-up refusals of an incomplete or wrong S3 setting.
 */
class FileStoreProducerTest {
    @TempDir
    Path tmp;

    static FileStore create(Map<String, String> properties) {
        return FileStoreProducer.create(UploadConfigs.of(properties).storage());
    }

    static Map<String, String> s3(String... pairs) {
        Map<String, String> p = new HashMap<>(Map.of("upload.storage.kind", "s3", "upload.storage.s3.endpoint",
                "http://minio:9000", "upload.storage.s3.bucket", "uploads", "upload.storage.s3.access-key", "AKID",
                "upload.storage.s3.secret-key", "very-secret"));
        for (int i = 0; i < pairs.length; i += 2) {
            if (pairs[i + 1] == null) {
                p.remove(pairs[i]);
            } else {
                p.put(pairs[i], pairs[i + 1]);
            }
        }
        return p;
    }

    static String refusal(Map<String, String> properties) {
        return assertThrows(ConfigurationException.class, () -> create(properties)).getMessage();
    }

    @Test
    void theLocalStoreIsTheDefault() {
        assertInstanceOf(LocalFileStore.class, create(Map.of()));
        assertInstanceOf(LocalFileStore.class, create(Map.of("upload.storage.kind", "local")));
        assertTrue(create(Map.of("upload.storage.dir", tmp.toString())).toString().contains(tmp.toString()));
    }

    @Test
    void s3IsChosenByKindAndTheSecretIsNotShown() {
        FileStore store = create(s3("upload.storage.s3.prefix", "/team-a"));
        assertInstanceOf(S3FileStore.class, store);
        assertEquals("S3FileStore[http://minio:9000/uploads/team-a/]", store.toString());
        assertFalse(store.toString().contains("very-secret"));
        assertEquals("S3FileStore[https://s3.eu-west-1.amazonaws.com/uploads/]",
                create(s3("upload.storage.s3.endpoint", "https://s3.eu-west-1.amazonaws.com/")).toString());
    }

    @Test
    void eachMissingS3SettingIsNamed() {
        String all = refusal(Map.of("upload.storage.kind", "s3"));
        for (String p : new String[]{"upload.storage.s3.endpoint", "upload.storage.s3.bucket",
                "upload.storage.s3.access-key", "upload.storage.s3.secret-key", "UPLOAD_STORAGE_S3_SECRET_KEY"}) {
            assertTrue(all.contains(p), all);
        }
        String one = refusal(s3("upload.storage.s3.bucket", null));
        assertTrue(one.contains("upload.storage.s3.bucket"), one);
        assertFalse(one.contains("endpoint") || one.contains("access-key"), one);
        assertTrue(refusal(s3("upload.storage.s3.secret-key", " ")).contains("upload.storage.s3.secret-key"));
    }

    @Test
    void wrongSettingsAreRefusedWithTheProperty() {
        assertTrue(
                refusal(Map.of("upload.storage.kind", "gcs")).contains("upload.storage.kind must be 'local' or 's3'"));
        for (String endpoint : new String[]{"minio:9000", "ftp://minio", "http://minio:9000/bucket",
                "https://user:pw@s3.example", "http://minio:9000?x=1", "not a url"}) {
            assertTrue(refusal(s3("upload.storage.s3.endpoint", endpoint)).contains("upload.storage.s3.endpoint"),
                    endpoint);
        }
        assertTrue(refusal(s3("upload.storage.s3.bucket", "a/b")).contains("upload.storage.s3.bucket"));
        assertTrue(refusal(s3("upload.storage.s3.region", "eu west")).contains("upload.storage.s3.region"));
        assertTrue(refusal(s3("upload.storage.s3.prefix", "a//b")).contains("upload.storage.s3.prefix"));
        assertTrue(refusal(s3("upload.storage.s3.prefix", "a/../b")).contains("upload.storage.s3.prefix"));
        assertTrue(refusal(s3("upload.storage.s3.request-timeout", "PT0S"))
                .contains("upload.storage.s3.request-timeout"));
    }

    /** The property names as deployments set them, end to end against the signature-checking loopback server. */
    @Test
    void aStoreMadeFromTheSettingsWorksAgainstALoopbackS3() throws Exception {
        try (LoopbackS3 server = LoopbackS3.start("AKIDCONF", "conf-secret", "eu-west-3", "shared")) {
            FileStore store = create(s3("upload.storage.s3.endpoint", server.endpoint().toString(),
                    "upload.storage.s3.bucket", "shared", "upload.storage.s3.region", "eu-west-3",
                    "upload.storage.s3.access-key", "AKIDCONF", "upload.storage.s3.secret-key", "conf-secret",
                    "upload.storage.s3.prefix", "svc", "upload.storage.s3.connect-timeout", "PT2S",
                    "upload.storage.s3.request-timeout", "PT20S"));
            Path f = Files.write(tmp.resolve("f"), new byte[]{1, 2, 3});
            store.put("0123456789abcdef0123456789abcdef", f);
            assertArrayEquals(new byte[]{1, 2, 3}, server.object("shared", "svc/0123456789abcdef0123456789abcdef")
                    .orElseThrow());
            try (InputStream in = store.open("0123456789abcdef0123456789abcdef").orElseThrow()) {
                assertArrayEquals(new byte[]{1, 2, 3}, in.readAllBytes());
            }
        }
    }

    static String openRefusal(Map<String, String> properties) {
        return assertThrows(ConfigurationException.class,
                () -> FileStoreProducer.open(UploadConfigs.of(properties).storage())).getMessage();
    }

    @Test
    void atStartTheStoreMustTakeAFileAndLeavesNothingBehind() throws Exception {
        try (LoopbackS3 s3 = LoopbackS3.start("AKID", "very-secret", "us-east-1", "uploads")) {
            String endpoint = s3.endpoint().toString();
            FileStore store = FileStoreProducer.open(UploadConfigs.of(s3("upload.storage.s3.endpoint", endpoint,
                    "upload.storage.s3.prefix", "team-a")).storage());
            assertInstanceOf(S3FileStore.class, store);
            assertEquals(2, s3.received.size(), s3.received.toString());
            LoopbackS3.Received put = s3.received.get(0);
            LoopbackS3.Received delete = s3.received.get(1);
            assertEquals("PUT", put.method());
            assertEquals(200, put.status());
            assertTrue(put.rawPath().startsWith("/uploads/team-a/"), put.rawPath());
            assertEquals("DELETE", delete.method());
            assertEquals(put.rawPath(), delete.rawPath());
            String key = put.rawPath().substring("/uploads/".length());
            assertTrue(s3.object("uploads", key).isEmpty(), "the check's file is deleted");

            String noBucket = openRefusal(s3("upload.storage.s3.endpoint", endpoint, "upload.storage.s3.bucket",
                    "no-such-bucket"));
            assertTrue(noBucket.contains("upload-service cannot store a file in S3FileStore[" + endpoint
                    + "/no-such-bucket/]") && noBucket.contains("404 NoSuchBucket")
                    && noBucket.contains("upload.storage.s3.bucket exists"), noBucket);
            String wrongSecret = openRefusal(s3("upload.storage.s3.endpoint", endpoint, "upload.storage.s3.secret-key",
                    "not-the-secret"));
            assertTrue(wrongSecret.contains("403 SignatureDoesNotMatch")
                    && wrongSecret.contains("upload.storage.s3.secret-key may put and delete"), wrongSecret);
            assertFalse(wrongSecret.contains("not-the-secret"), "the secret is never shown");
        }
        String unreachable = openRefusal(s3("upload.storage.s3.endpoint", "http://127.0.0.1:1",
                "upload.storage.s3.connect-timeout", "PT2S"));
        assertTrue(unreachable.contains("at http://127.0.0.1:1 failed")
                && unreachable.contains("upload.storage.s3.endpoint is reachable"), unreachable);

        Path notADirectory = Files.writeString(tmp.resolve("a-file"), "x");
        String local = openRefusal(Map.of("upload.storage.dir", notADirectory.resolve("files").toString()));
        assertTrue(local.contains("cannot store a file in LocalFileStore[" + notADirectory.resolve("files"))
                && local.contains("upload.storage.dir can be written"), local);
        FileStore writable = FileStoreProducer.open(UploadConfigs.of(Map.of("upload.storage.dir",
                tmp.resolve("files").toString())).storage());
        assertInstanceOf(LocalFileStore.class, writable);
        try (var left = Files.list(tmp.resolve("files"))) {
            assertEquals(0, left.count(), "the check's file is deleted");
        }
    }
}
