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
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

    static S3FileStore store(String bucket, String prefix, String secret, Clock clock) {
        return new S3FileStore(s3.endpoint(), bucket, prefix, new SigV4(ACCESS, secret, REGION, "s3"),
                Duration.ofSeconds(5), Duration.ofSeconds(30), clock);
    }

    static S3FileStore store() {
        return store("files", "uploads/", SECRET, Clock.systemUTC());
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
            assertFalse(store.put(id, source), "the source was copied: the caller still owns it");
            assertTrue(Files.exists(source));
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
        S3FileStore store = store("files", "tenant a/ü+x=1/", SECRET, Clock.systemUTC());
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
        S3FileStore store = store("files", "uploads/", "not-the-secret", Clock.systemUTC());
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
    void aWrongKeyIdAClockFarOffAndAMissingBucketAreErrorsNotMissingFiles() throws IOException {
        S3FileStore wrongKey = new S3FileStore(s3.endpoint(), "files", "", new SigV4("AKIDOTHER", SECRET, REGION, "s3"),
                Duration.ofSeconds(5), Duration.ofSeconds(30), Clock.systemUTC());
        assertTrue(assertThrows(IOException.class, () -> wrongKey.open(newId())).getMessage()
                .contains("403 InvalidAccessKeyId"));
        S3FileStore late = store("files", "", SECRET, Clock.offset(Clock.systemUTC(), Duration.ofHours(1)));
        assertTrue(assertThrows(IOException.class, () -> late.open(newId())).getMessage()
                .contains("403 RequestTimeTooSkewed"));
        S3FileStore noBucket = store("no-such-bucket", "", SECRET, Clock.systemUTC());
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
        S3FileStore store = new S3FileStore(URI.create("http://127.0.0.1:1"), "files", "", new SigV4(ACCESS, SECRET,
                REGION, "s3"), Duration.ofSeconds(2), Duration.ofSeconds(5), Clock.systemUTC());
        IOException e = assertThrows(IOException.class, () -> store.open(newId()));
        assertTrue(e.getMessage().startsWith("S3 GET files/"), e.getMessage());
    }

    @Test
    void onlyFileIdsAreKeys() {
        S3FileStore store = store();
        assertThrows(IllegalArgumentException.class, () -> store.open("../etc/passwd"));
        assertThrows(IllegalArgumentException.class, () -> store.delete("ABCDEF0123456789ABCDEF0123456789"));
    }

    /** The server's check itself: a body or path changed after signing is refused. */
    @Test
    void theLoopbackServerRefusesTamperedRequests() throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        SigV4 signer = new SigV4(ACCESS, SECRET, REGION, "s3");
        String host = SigV4.hostHeader(s3.endpoint());
        byte[] body = "original body".getBytes(StandardCharsets.UTF_8);
        byte[] tampered = "tampered body".getBytes(StandardCharsets.UTF_8);

        SigV4.Signed good = signer.sign("PUT", host, "/files/t1", "", Map.of(), SigV4.sha256Hex(body),
                Instant.now());
        assertEquals(200, send(http, "PUT", "/files/t1", good.headers(), body).statusCode());

        // the body changed, the signed hash kept: the hash no longer matches what arrived
        HttpResponse<String> r = send(http, "PUT", "/files/t2",
                signer.sign("PUT", host, "/files/t2", "", Map.of(), SigV4.sha256Hex(body), Instant.now()).headers(),
                tampered);
        assertEquals(400, r.statusCode());
        assertTrue(r.body().contains("<Code>XAmzContentSHA256Mismatch</Code>"), r.body());

        // the body and its hash both changed: the signature no longer matches
        SigV4.Signed signedForOriginal = signer.sign("PUT", host, "/files/t3", "", Map.of(), SigV4.sha256Hex(body),
                Instant.now());
        Map<String, String> headers = new java.util.HashMap<>(signedForOriginal.headers());
        headers.put("x-amz-content-sha256", SigV4.sha256Hex(tampered));
        r = send(http, "PUT", "/files/t3", headers, tampered);
        assertEquals(403, r.statusCode());
        assertTrue(r.body().contains("<Code>SignatureDoesNotMatch</Code>"), r.body());

        // a request signed for one key, sent to another
        r = send(http, "PUT", "/files/t5", signer.sign("PUT", host, "/files/t4", "", Map.of(), SigV4.sha256Hex(body),
                Instant.now()).headers(), body);
        assertEquals(403, r.statusCode());
        assertTrue(s3.object("files", "t2").isEmpty() && s3.object("files", "t3").isEmpty()
                && s3.object("files", "t5").isEmpty());

        // no signature at all
        assertEquals(403, send(http, "GET", "/files/t1", Map.of(), null).statusCode());
    }

    static HttpResponse<String> send(HttpClient http, String method, String path, Map<String, String> headers,
            byte[] body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(s3.endpoint().resolve(path)).method(method,
                body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
        headers.forEach(b::header);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
