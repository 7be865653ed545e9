package com.convplatform.upload.storage;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Files as objects of an S3-compatible bucket (AWS S3, MinIO, Ceph RGW, Cloudflare R2, ...), so that several
 * replicas share them. Path-style addressing ({@code <endpoint>/<bucket>/<prefix><id>}), AWS Signature Version 4
 * ({@link SigV4}) over the JDK's HTTP client, no SDK. A PUT streams the file from disk with its Content-Length and
 * its SHA-256 (read once beforehand) as {@code x-amz-content-sha256}; a GET streams the object. No retries: a failed
 * PUT fails the upload (500), which the client may repeat.
 */
public final class S3FileStore implements FileStore {
    private static final Pattern CODE = Pattern.compile("<Code>([^<]*)</Code>");
    private static final Pattern MESSAGE = Pattern.compile("<Message>([^<]*)</Message>");
    private static final int ERROR_BODY_LIMIT = 4096;

    private final URI endpoint;
    private final String host;
    private final String bucket;
    private final String prefix;
    private final SigV4 signer;
    private final HttpClient http;
    private final Duration requestTimeout;
    private final Clock clock;

    /**
     * @param endpoint scheme, host and optional port, no path (https://s3.eu-west-1.amazonaws.com,
     *        http://minio:9000)
     * @param bucket the bucket, addressed path-style
     * @param prefix prepended to every id to form the object key ("" or for example "uploads/")
     * @param signer credentials and region
     * @param connectTimeout time to open a connection
     * @param requestTimeout time for a whole PUT, or until the answer's headers of a GET or DELETE
     */
    public S3FileStore(URI endpoint, String bucket, String prefix, SigV4 signer, Duration connectTimeout,
            Duration requestTimeout, Clock clock) {
        this.endpoint = endpoint;
        this.host = SigV4.hostHeader(endpoint);
        this.bucket = bucket;
        this.prefix = prefix;
        this.signer = signer;
        this.requestTimeout = requestTimeout;
        this.clock = clock;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(connectTimeout)
                .followRedirects(HttpClient.Redirect.NEVER).build();
    }

    @Override
    public boolean put(String id, Path source) throws IOException {
        String key = key(id);
        String payloadHash = SigV4.sha256Hex(source);
        // ofFile streams from disk and declares the file's length, so the request carries Content-Length
        HttpResponse<InputStream> r = send("PUT", key, payloadHash, HttpRequest.BodyPublishers.ofFile(source));
        try (InputStream body = r.body()) {
            if (r.statusCode() / 100 != 2) {
                throw failure("PUT", key, r.statusCode(), errorBody(body));
            }
        }
        return false;
    }

    @Override
    public Optional<InputStream> open(String id) throws IOException {
        String key = key(id);
        HttpResponse<InputStream> r = send("GET", key, SigV4.EMPTY_PAYLOAD_SHA256,
                HttpRequest.BodyPublishers.noBody());
        if (r.statusCode() == 200) {
            return Optional.of(r.body());
        }
        try (InputStream body = r.body()) {
            String xml = errorBody(body);
            if (r.statusCode() == 404 && !xml.contains("<Code>NoSuchBucket</Code>")) {
                return Optional.empty();
            }
            throw failure("GET", key, r.statusCode(), xml);
        }
    }

    @Override
    public void delete(String id) throws IOException {
        String key = key(id);
        HttpResponse<InputStream> r = send("DELETE", key, SigV4.EMPTY_PAYLOAD_SHA256,
                HttpRequest.BodyPublishers.noBody());
        if (r.statusCode() / 100 == 2) {
            r.body().close();
            return;
        }
        // S3 answers 204 whether or not the object existed; some implementations answer 404 for a missing one
        try (InputStream body = r.body()) {
            String xml = errorBody(body);
            if (r.statusCode() != 404 || xml.contains("<Code>NoSuchBucket</Code>")) {
                throw failure("DELETE", key, r.statusCode(), xml);
            }
        }
    }

    private HttpResponse<InputStream> send(String method, String key, String payloadHash,
            HttpRequest.BodyPublisher body) throws IOException {
        String path = SigV4.canonicalUri("/" + bucket + "/" + key);
        SigV4.Signed signed = signer.sign(method, host, path, "", Map.of(), payloadHash, clock.instant());
        HttpRequest.Builder request = HttpRequest.newBuilder(endpoint.resolve(path)).timeout(requestTimeout)
                .method(method, body);
        signed.headers().forEach(request::header);
        try {
            return http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("S3 " + method + " " + bucket + "/" + key + " interrupted");
        } catch (IOException e) {
            throw new IOException("S3 " + method + " " + bucket + "/" + key + " at " + endpoint + " failed: " + e,
                    e);
        }
    }

    private String key(String id) {
        if (!FileIds.isValid(id)) {
            throw new IllegalArgumentException("not a file id");
        }
        return prefix + id;
    }

    /** The start of an error answer (S3 sends a small XML document). */
    private static String errorBody(InputStream body) throws IOException {
        return new String(body.readNBytes(ERROR_BODY_LIMIT), StandardCharsets.UTF_8);
    }

    /** "S3 PUT bucket/key: HTTP 403 SignatureDoesNotMatch (message)", from the XML error body, truncated. */
    private IOException failure(String method, String key, int status, String xml) {
        StringBuilder m = new StringBuilder("S3 ").append(method).append(' ').append(bucket).append('/').append(key)
                .append(": HTTP ").append(status);
        Matcher code = CODE.matcher(xml);
        if (code.find()) {
            m.append(' ').append(clean(code.group(1), 64));
            Matcher message = MESSAGE.matcher(xml);
            if (message.find()) {
                m.append(" (").append(clean(message.group(1), 160)).append(')');
            }
        } else if (!xml.isBlank()) {
            m.append(" body: ").append(clean(xml, 160));
        }
        return new IOException(m.toString());
    }

    private static String clean(String s, int max) {
        String printable = s.replaceAll("[^\\x20-\\x7E]", "?").trim();
        return printable.length() <= max ? printable : printable.substring(0, max) + "...";
    }

    @Override
    public String toString() {
        return "S3FileStore[" + endpoint + "/" + bucket + "/" + prefix + "]";
    }
}
