package com.convplatform.upload.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;

/** {@link S3FileStore} against {@link LoopbackS3}, which checks every request's SigV4 signature and payload hash. */
class S3FileStoreTest {
    static final String ACCESS = "AKIDLOOPBACKTEST";
    static final String SECRET = "loopback/secret+key";
    static final String REGION = "eu-central-1";
    static LoopbackS3 s3;

    @TempDir
    Path tmp;

    @BeforeAll
    static void start() throws IOException {
        s3 = LoopbackS3.start(ACCESS, SECRET, REGION, "files");
    }

    @AfterAll
    static void stop() {
        s3.close();
    }

    @AfterEach
    void healthy() {
        s3.failWith = 0;
    }

    static S3FileStore store(String bucket, String prefix, String secret) {
        return new S3FileStore(s3.endpoint(), bucket, prefix, REGION, ACCESS, secret, Duration.ofSeconds(5),
                Duration.ofSeconds(30));
    }

    static S3FileStore store() {
        return store("files", "uploads/", SECRET);
    }

    static String newId() {
        byte[] b = new byte[16];
        new SecureRandom().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    Path file(int size, long seed) throws IOException {
        byte[] content = new byte[size];
        new Random(seed).nextBytes(content);
        return Files.write(tmp.resolve("f" + seed), content);
    }

    static byte[] read(Optional<InputStream> in) throws IOException {
        try (InputStream s = in.orElseThrow()) {
            return s.readAllBytes();
        }
    }

    @Test
    void aFileIsStoredAndReadBackByteForByte() throws IOException {
        S3FileStore store = store();
        for (int size : new int[]{1, 1000, 5 * 1024 * 1024}) {
            Path source = file(size, size);
            String id = newId();
            store.put(id, source);
            assertTrue(Files.exists(source), "the source was copied: its request removes it");
            byte[] expected = Files.readAllBytes(source);
            assertArrayEquals(expected, s3.object("files", "uploads/" + id).orElseThrow(), "stored object");
            assertArrayEquals(expected, read(store.open(id)), "read back");
            LoopbackS3.Received put = s3.received.stream()
                    .filter(r -> r.method().equals("PUT") && r.rawPath().equals("/files/uploads/" + id)).findFirst()
                    .orElseThrow();
            assertEquals(String.valueOf(size), put.contentLength(), "PUT declares its Content-Length");
            assertNull(put.transferEncoding(), "PUT is not chunked");
        }
    }

    @Test
    void aMissingFileIsEmptyAndDeleteRemovesOrIgnores() throws IOException {
        S3FileStore store = store();
        assertTrue(store.open(newId()).isEmpty());
        String id = newId();
        store.put(id, file(300, 7));
        store.delete(id);
        assertTrue(s3.object("files", "uploads/" + id).isEmpty());
        assertTrue(store.open(id).isEmpty());
        store.delete(id);
        store.delete(newId());
    }

    @Test
    void keysUnderAPrefixWithSpacesAndNonAsciiAreSignedAsTheServerReadsThem() throws IOException {
        S3FileStore store = store("files", "tenant a/ü+x=1/", SECRET);
        String id = newId();
        Path source = file(2048, 11);
        store.put(id, source);
        assertArrayEquals(Files.readAllBytes(source), s3.object("files", "tenant a/ü+x=1/" + id).orElseThrow());
        assertArrayEquals(Files.readAllBytes(source), read(store.open(id)));
        assertTrue(s3.received.stream().anyMatch(r -> r.rawPath().equals("/files/tenant%20a/%C3%BC%2Bx%3D1/" + id)));
        store.delete(id);
        assertTrue(store.open(id).isEmpty());
    }

    @Test
    void aWrongSecretIsRefusedWith403SignatureDoesNotMatch() throws IOException {
        S3FileStore store = store("files", "uploads/", "not-the-secret");
        String id = newId();
        IOException put = assertThrows(IOException.class, () -> store.put(id, file(100, 3)));
        assertTrue(put.getMessage().contains("HTTP 403 SignatureDoesNotMatch"), put.getMessage());
        assertTrue(s3.object("files", "uploads/" + id).isEmpty());
        IOException open = assertThrows(IOException.class, () -> store.open(id));
        assertTrue(open.getMessage().contains("403 SignatureDoesNotMatch"), open.getMessage());
        IOException delete = assertThrows(IOException.class, () -> store.delete(id));
        assertTrue(delete.getMessage().contains("403 SignatureDoesNotMatch"), delete.getMessage());
        assertFalse(put.getMessage().contains("not-the-secret"));
    }

    @Test
    void aWrongKeyIdAndAMissingBucketAreErrorsNotMissingFiles() throws IOException {
        S3FileStore wrongKey = new S3FileStore(s3.endpoint(), "files", "", REGION, "AKIDOTHER", SECRET,
                Duration.ofSeconds(5), Duration.ofSeconds(30));
        assertTrue(assertThrows(IOException.class, () -> wrongKey.open(newId())).getMessage()
                .contains("403 InvalidAccessKeyId"));
        S3FileStore noBucket = store("no-such-bucket", "", SECRET);
        assertTrue(assertThrows(IOException.class, () -> noBucket.open(newId())).getMessage()
                .contains("404 NoSuchBucket"));
        assertTrue(assertThrows(IOException.class, () -> noBucket.put(newId(), file(10, 5))).getMessage()
                .contains("404 NoSuchBucket"));
        assertTrue(assertThrows(IOException.class, () -> noBucket.delete(newId())).getMessage()
                .contains("404 NoSuchBucket"));
    }

    @Test
    void aServerErrorIsAnIOExceptionWithTheStatusAndCode() throws IOException {
        S3FileStore store = store();
        String id = newId();
        store.put(id, file(100, 9));
        s3.failWith = 500;
        for (IOException e : new IOException[]{assertThrows(IOException.class, () -> store.put(newId(), file(10, 1))),
                assertThrows(IOException.class, () -> store.open(id)),
                assertThrows(IOException.class, () -> store.delete(id))}) {
            assertTrue(e.getMessage().contains("HTTP 500 InternalError (We encountered an internal error"),
                    e.getMessage());
        }
        s3.failWith = 0;
        assertTrue(store.open(id).isPresent());
    }

    @Test
    void anUnreachableEndpointIsAnIOException() throws IOException {
        S3FileStore store = new S3FileStore(URI.create("http://127.0.0.1:1"), "files", "", REGION, ACCESS, SECRET,
                Duration.ofSeconds(2), Duration.ofSeconds(5));
        IOException e = assertThrows(IOException.class, () -> store.open(newId()));
        assertTrue(e.getMessage().startsWith("S3 GET files/"), e.getMessage());
    }

    @Test
    void onlyFileIdsAreKeys() {
        S3FileStore store = store();
        assertThrows(IllegalArgumentException.class, () -> store.open("../etc/passwd"));
        assertThrows(IllegalArgumentException.class, () -> store.delete("ABCDEF0123456789ABCDEF0123456789"));
    }

    /**
     * The server's check itself: a body or path changed after signing is refused. The requests are signed with the
     * SDK's own SigV4 signer, then changed.
     */
    @Test
    void theLoopbackServerRefusesTamperedRequests() throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        byte[] body = "original body".getBytes(StandardCharsets.UTF_8);
        byte[] tampered = "tampered body".getBytes(StandardCharsets.UTF_8);

        assertEquals(200, send(http, "PUT", "/files/t1", signed("PUT", "/files/t1", body), body).statusCode());

        // the body changed, the signed hash kept: the hash no longer matches what arrived
        HttpResponse<String> r = send(http, "PUT", "/files/t2", signed("PUT", "/files/t2", body), tampered);
        assertEquals(400, r.statusCode());
        assertTrue(r.body().contains("<Code>XAmzContentSHA256Mismatch</Code>"), r.body());

        // the body and its hash both changed: the signature no longer matches
        Map<String, String> headers = new java.util.HashMap<>(signed("PUT", "/files/t3", body));
        headers.put("x-amz-content-sha256", HexFormat.of()
                .formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(tampered)));
        r = send(http, "PUT", "/files/t3", headers, tampered);
        assertEquals(403, r.statusCode());
        assertTrue(r.body().contains("<Code>SignatureDoesNotMatch</Code>"), r.body());

        // a request signed for one key, sent to another
        r = send(http, "PUT", "/files/t5", signed("PUT", "/files/t4", body), body);
        assertEquals(403, r.statusCode());
        assertTrue(s3.object("files", "t2").isEmpty() && s3.object("files", "t3").isEmpty()
                && s3.object("files", "t5").isEmpty());

        // no signature at all
        assertEquals(403, send(http, "GET", "/files/t1", Map.of(), null).statusCode());
    }

    /** The headers the SDK's SigV4 signer adds to a request with this body (payload signed). */
    static Map<String, String> signed(String method, String path, byte[] body) {
        SdkHttpFullRequest request = SdkHttpFullRequest.builder().method(SdkHttpMethod.fromValue(method))
                .uri(s3.endpoint().resolve(path)).build();
        SignedRequest signed = AwsV4HttpSigner.create().sign(r -> r
                .identity(AwsCredentialsIdentity.create(ACCESS, SECRET)).request(request)
                .payload(ContentStreamProvider.fromByteArray(body))
                .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
                .putProperty(AwsV4HttpSigner.REGION_NAME, REGION)
                .putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, true)
                .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, false)
                .putProperty(AwsV4HttpSigner.NORMALIZE_PATH, false));
        Map<String, String> headers = new java.util.HashMap<>();
        signed.request().forEachHeader((name, values) -> {
            if (!name.equalsIgnoreCase("host")) {
                headers.put(name, values.get(0));
            }
        });
        return headers;
    }

    static HttpResponse<String> send(HttpClient http, String method, String path, Map<String, String> headers,
            byte[] body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(s3.endpoint().resolve(path)).method(method,
                body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
        headers.forEach(b::header);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
