package com.convplatform.upload.storage;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import com.convplatform.testsupport.StubServer;
import com.sun.net.httpserver.HttpExchange;

/**
 * A small S3-compatible object store on 127.0.0.1 for tests: path-style PUT, GET and DELETE of objects held in memory
 * per bucket and key, with S3's XML errors. Every request must carry a correct AWS Signature Version 4 for the
 * configured credentials, else 403 (SignatureDoesNotMatch, InvalidAccessKeyId, RequestTimeTooSkewed); the
 * x-amz-content-sha256 header must be the SHA-256 of the body received (else 400 XAmzContentSHA256Mismatch; a GET or
 * DELETE without a body may send UNSIGNED-PAYLOAD instead, as S3 allows), and a
 * PUT must declare its Content-Length (else 411 MissingContentLength), as S3 does.
 *
 * <p>
 * The signature is recomputed here from the request as received, with code of its own (not the AWS SDK's): the
 * path and query are decoded and re-encoded, the signed headers read from the wire, so a shared mistake of the
 * client's signer cannot pass unnoticed.
 */
public final class LoopbackS3 implements AutoCloseable {
    private static final Pattern AUTHORIZATION = Pattern.compile("AWS4-HMAC-SHA256 Credential=([^/,\\s]+)/(\\d{8})/"
            + "([^/,\\s]+)/s3/aws4_request,\\s*SignedHeaders=([a-z0-9;-]+),\\s*Signature=([0-9a-f]{64})");
    private static final DateTimeFormatter AMZ_DATE = DateTimeFormatter.ofPattern("uuuuMMdd'T'HHmmss'Z'");
    private static final String UNRESERVED = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~";

    /** One request as received (after the signature check). */
    public record Received(String method, String rawPath, String contentLength, String transferEncoding, int status) {
    }

    private final String accessKey;
    private final String secretKey;
    private final String region;
    private StubServer server;
    private final Map<String, Map<String, byte[]>> buckets = new ConcurrentHashMap<>();
    /** Every request, in order. */
    public final List<Received> received = new CopyOnWriteArrayList<>();
    /** When not 0, every authenticated request is answered with this status and InternalError. */
    public volatile int failWith;

    private LoopbackS3(String accessKey, String secretKey, String region) throws IOException {
        this.accessKey = accessKey;
        this.secretKey = secretKey;
        this.region = region;
    }

    /** Starts a server holding the given (empty) buckets. */
    public static LoopbackS3 start(String accessKey, String secretKey, String region, String... buckets)
            throws IOException {
        LoopbackS3 s3 = new LoopbackS3(accessKey, secretKey, region);
        for (String b : buckets) {
            s3.buckets.put(b, new ConcurrentHashMap<>());
        }
        s3.server = StubServer.http().route("/", s3::handle);
        return s3;
    }

    public URI endpoint() {
        return URI.create(server.url());
    }

    public Optional<byte[]> object(String bucket, String key) {
        return Optional.ofNullable(buckets.getOrDefault(bucket, Map.of()).get(key));
    }

    public void removeObject(String bucket, String key) {
        buckets.get(bucket).remove(key);
    }

    @Override
    public void close() {
        server.close();
    }

    private void handle(HttpExchange ex) throws IOException {
        try {
            byte[] body = ex.getRequestBody().readAllBytes();
            String method = ex.getRequestMethod();
            String rawPath = ex.getRequestURI().getRawPath();
            String problem = authenticate(ex, body);
            int status;
            if (problem != null) {
                String[] p = problem.split(" ", 3);
                status = error(ex, Integer.parseInt(p[0]), p[1], p[2]);
            } else if (failWith != 0) {
                status = error(ex, failWith, "InternalError", "We encountered an internal error. Please try again.");
            } else {
                status = serve(ex, method, body);
            }
            received.add(new Received(method, rawPath, ex.getRequestHeaders().getFirst("Content-Length"),
                    ex.getRequestHeaders().getFirst("Transfer-Encoding"), status));
        } finally {
            ex.close();
        }
    }

    private int serve(HttpExchange ex, String method, byte[] body) throws IOException {
        String path = ex.getRequestURI().getPath(); // decoded
        int slash = path.indexOf('/', 1);
        if (slash < 0 || slash == path.length() - 1) {
            return error(ex, 501, "NotImplemented", "Only object requests are implemented here");
        }
        Map<String, byte[]> bucket = buckets.get(path.substring(1, slash));
        if (bucket == null) {
            return error(ex, 404, "NoSuchBucket", "The specified bucket does not exist");
        }
        String key = path.substring(slash + 1);
        switch (method) {
            case "PUT" -> {
                if (ex.getRequestHeaders().getFirst("Content-Length") == null) {
                    return error(ex, 411, "MissingContentLength", "You must provide the Content-Length HTTP header.");
                }
                bucket.put(key, body);
                ex.getResponseHeaders().set("ETag", "\"" + hex(digest("MD5"), body) + "\"");
                ex.sendResponseHeaders(200, -1);
                return 200;
            }
            case "GET" -> {
                byte[] object = bucket.get(key);
                if (object == null) {
                    return error(ex, 404, "NoSuchKey", "The specified key does not exist.");
                }
                ex.getResponseHeaders().set("Content-Type", "binary/octet-stream");
                ex.sendResponseHeaders(200, object.length);
                try (OutputStream out = ex.getResponseBody()) {
                    out.write(object);
                }
                return 200;
            }
            case "DELETE" -> {
                bucket.remove(key);
                ex.sendResponseHeaders(204, -1);
                return 204;
            }
            default -> {
                return error(ex, 405, "MethodNotAllowed", "The specified method is not allowed");
            }
        }
    }

    /** null when the request is signed correctly, else "status Code message". */
    private String authenticate(HttpExchange ex, byte[] body) {
        String authorization = ex.getRequestHeaders().getFirst("Authorization");
        if (authorization == null) {
            return "403 AccessDenied Access Denied";
        }
        Matcher m = AUTHORIZATION.matcher(authorization);
        if (!m.matches()) {
            return "400 AuthorizationHeaderMalformed The authorization header is malformed";
        }
        if (!m.group(1).equals(accessKey)) {
            return "403 InvalidAccessKeyId The AWS Access Key Id you provided does not exist in our records.";
        }
        if (!m.group(3).equals(region)) {
            return "400 AuthorizationHeaderMalformed the region '" + m.group(3) + "' is wrong; expecting '" + region
                    + "'";
        }
        List<String> signed = List.of(m.group(4).split(";"));
        if (!signed.contains("host") || !signed.contains("x-amz-date") || !signed.contains("x-amz-content-sha256")
                || !signed.equals(signed.stream().sorted().toList())) {
            return "403 SignatureDoesNotMatch host, x-amz-date and x-amz-content-sha256 must be signed, in order";
        }
        String amzDate = ex.getRequestHeaders().getFirst("x-amz-date");
        Instant time;
        try {
            time = LocalDateTime.parse(amzDate == null ? "" : amzDate, AMZ_DATE).toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            return "403 AccessDenied AWS authentication requires a valid Date or x-amz-date header";
        }
        if (!amzDate.startsWith(m.group(2))) {
            return "403 SignatureDoesNotMatch the credential date does not match x-amz-date";
        }
        if (Duration.between(time, Instant.now()).abs().compareTo(Duration.ofMinutes(15)) > 0) {
            return "403 RequestTimeTooSkewed The difference between the request time and the current time is too "
                    + "large.";
        }
        String claimedHash = ex.getRequestHeaders().getFirst("x-amz-content-sha256");
        String actualHash = hex(digest("SHA-256"), body);
        // S3 takes UNSIGNED-PAYLOAD (the signature then covers the headers only); the AWS SDK sends it for requests
        // without a body. A PUT must sign its body here, so that the tests show the store does.
        boolean unsignedWithoutBody = "UNSIGNED-PAYLOAD".equals(claimedHash) && body.length == 0
                && !ex.getRequestMethod().equals("PUT");
        if (!unsignedWithoutBody && !actualHash.equals(claimedHash)) {
            return "400 XAmzContentSHA256Mismatch The provided 'x-amz-content-sha256' header does not match what was "
                    + "computed.";
        }
        StringBuilder canonical = new StringBuilder();
        canonical.append(ex.getRequestMethod()).append('\n');
        canonical.append(canonicalPath(ex.getRequestURI().getRawPath())).append('\n');
        canonical.append(canonicalQuery(ex.getRequestURI().getRawQuery())).append('\n');
        for (String name : signed) {
            List<String> values = ex.getRequestHeaders().get(name);
            if (values == null) {
                return "403 SignatureDoesNotMatch the signed header " + name + " is missing";
            }
            List<String> trimmed = new ArrayList<>();
            for (String v : values) {
                trimmed.add(v.strip().replaceAll(" {2,}", " "));
            }
            canonical.append(name).append(':').append(String.join(",", trimmed)).append('\n');
        }
        canonical.append('\n').append(m.group(4)).append('\n').append(claimedHash);
        String scope = m.group(2) + "/" + region + "/s3/aws4_request";
        String stringToSign = "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n"
                + hex(digest("SHA-256"), canonical.toString().getBytes(StandardCharsets.UTF_8));
        byte[] k = ("AWS4" + secretKey).getBytes(StandardCharsets.UTF_8);
        for (String part : new String[]{m.group(2), region, "s3", "aws4_request"}) {
            k = hmac(k, part);
        }
        String expected = HexFormat.of().formatHex(hmac(k, stringToSign));
        if (!MessageDigest.isEqual(expected.getBytes(StandardCharsets.US_ASCII),
                m.group(5).getBytes(StandardCharsets.US_ASCII))) {
            return "403 SignatureDoesNotMatch The request signature we calculated does not match the signature you "
                    + "provided. Check your key and signing method.";
        }
        return null;
    }

    /** Each segment of the raw path decoded, then encoded again the SigV4 way. */
    static String canonicalPath(String rawPath) {
        if (rawPath == null || rawPath.isEmpty()) {
            return "/";
        }
        List<String> segments = new ArrayList<>();
        for (String segment : rawPath.split("/", -1)) {
            segments.add(encode(decode(segment)));
        }
        return String.join("/", segments);
    }

    static String canonicalQuery(String rawQuery) {
        if (rawQuery == null || rawQuery.isEmpty()) {
            return "";
        }
        List<String[]> pairs = new ArrayList<>();
        for (String p : rawQuery.split("&")) {
            int eq = p.indexOf('=');
            String name = eq < 0 ? p : p.substring(0, eq);
            String value = eq < 0 ? "" : p.substring(eq + 1);
            pairs.add(new String[]{encode(decode(name)), encode(decode(value))});
        }
        pairs.sort((a, b) -> a[0].equals(b[0]) ? a[1].compareTo(b[1]) : a[0].compareTo(b[0]));
        List<String> joined = new ArrayList<>();
        for (String[] p : pairs) {
            joined.add(p[0] + "=" + p[1]);
        }
        return String.join("&", joined);
    }

    private static String encode(String s) {
        StringBuilder out = new StringBuilder();
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            if (UNRESERVED.indexOf((char) (b & 0xFF)) >= 0 && b >= 0) {
                out.append((char) b);
            } else {
                out.append(String.format("%%%02X", b & 0xFF));
            }
        }
        return out.toString();
    }

    /** Percent-decoding only ('+' stays '+', as S3 reads paths). */
    private static String decode(String s) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%' && i + 2 < s.length()) {
                out.write(Integer.parseInt(s.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                out.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private static int error(HttpExchange ex, int status, String code, String message) throws IOException {
        byte[] xml = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>" + code + "</Code><Message>" + message
                + "</Message><Resource>" + ex.getRequestURI().getRawPath() + "</Resource><RequestId>loopback"
                + "</RequestId></Error>").getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/xml");
        if (ex.getRequestMethod().equals("HEAD")) {
            ex.sendResponseHeaders(status, -1);
        } else {
            ex.sendResponseHeaders(status, xml.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(xml);
            }
        }
        return status;
    }

    private static String hex(MessageDigest digest, byte[] data) {
        return HexFormat.of().formatHex(digest.digest(data));
    }

    private static MessageDigest digest(String algorithm) {
        try {
            return MessageDigest.getInstance(algorithm);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] hmac(byte[] key, String data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
