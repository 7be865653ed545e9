package com.convplatform.upload.storage;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * AWS Signature Version 4 for requests authenticated by the {@code Authorization} header (the S3 flavour: the
 * canonical URI is the path as sent, encoded once, and the payload hash is signed as {@code x-amz-content-sha256}).
 * JDK only: HmacSHA256 and SHA-256.
 *
 * <p>
 * {@link #sign} always signs {@code host}, {@code x-amz-content-sha256} and {@code x-amz-date}, plus any extra
 * headers the caller passes (for example {@code range}); the caller must send the headers of {@link Signed#headers()}
 * and the extra headers with exactly the values signed.
 */
public final class SigV4 {
    public static final String ALGORITHM = "AWS4-HMAC-SHA256";
    /** SHA-256 of the empty payload (GET, DELETE). */
    public static final String EMPTY_PAYLOAD_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    private static final DateTimeFormatter AMZ_DATE = DateTimeFormatter.ofPattern("uuuuMMdd'T'HHmmss'Z'")
            .withZone(ZoneOffset.UTC);
    private static final HexFormat HEX = HexFormat.of();

    /** The result of signing one request. */
    public record Signed(String amzDate, String payloadSha256, String canonicalRequest, String stringToSign,
            String signedHeaders, String signature, String authorization) {

        /** The headers to add to the request: x-amz-date, x-amz-content-sha256 and Authorization. */
        public Map<String, String> headers() {
            Map<String, String> h = new LinkedHashMap<>();
            h.put("x-amz-date", amzDate);
            h.put("x-amz-content-sha256", payloadSha256);
            h.put("Authorization", authorization);
            return h;
        }

        @Override
        public String toString() {
            return "Signed[" + signedHeaders + "]";
        }
    }

    private final String accessKey;
    private final byte[] secretKey;
    private final String region;
    private final String service;

    /**
     * @param service {@code s3} for object storage
     */
    public SigV4(String accessKey, String secretKey, String region, String service) {
        this.accessKey = require(accessKey, "accessKey");
        this.secretKey = ("AWS4" + require(secretKey, "secretKey")).getBytes(StandardCharsets.UTF_8);
        this.region = require(region, "region");
        this.service = require(service, "service");
    }

    /**
     * Signs one request.
     *
     * @param method HTTP method, upper case
     * @param host the Host header as sent ({@link #hostHeader})
     * @param canonicalUri the path as sent, already URI-encoded once ({@link #canonicalUri})
     * @param canonicalQuery {@link #canonicalQuery} of the query parameters, or "" for none
     * @param extraHeaders further headers to sign, by name (any case); must not repeat the three always signed
     * @param payloadSha256 lower-case hex SHA-256 of the body ({@link #EMPTY_PAYLOAD_SHA256} for none)
     * @param time the signing time, sent as x-amz-date
     */
    public Signed sign(String method, String host, String canonicalUri, String canonicalQuery,
            Map<String, String> extraHeaders, String payloadSha256, Instant time) {
        String amzDate = AMZ_DATE.format(time);
        String day = amzDate.substring(0, 8);
        TreeMap<String, String> headers = new TreeMap<>();
        for (Map.Entry<String, String> e : extraHeaders.entrySet()) {
            String name = e.getKey().toLowerCase(Locale.ROOT).trim();
            if (headers.put(name, canonicalHeaderValue(e.getValue())) != null || name.equals("host")
                    || name.equals("x-amz-date") || name.equals("x-amz-content-sha256")) {
                throw new IllegalArgumentException("header signed twice: " + name);
            }
        }
        headers.put("host", canonicalHeaderValue(host));
        headers.put("x-amz-content-sha256", payloadSha256);
        headers.put("x-amz-date", amzDate);
        StringBuilder canonicalHeaders = new StringBuilder();
        for (Map.Entry<String, String> e : headers.entrySet()) {
            canonicalHeaders.append(e.getKey()).append(':').append(e.getValue()).append('\n');
        }
        String signedHeaders = String.join(";", headers.keySet());
        String canonicalRequest = method + "\n" + canonicalUri + "\n" + canonicalQuery + "\n" + canonicalHeaders + "\n"
                + signedHeaders + "\n" + payloadSha256;
        String scope = day + "/" + region + "/" + service + "/aws4_request";
        String stringToSign = ALGORITHM + "\n" + amzDate + "\n" + scope + "\n"
                + sha256Hex(canonicalRequest.getBytes(StandardCharsets.UTF_8));
        byte[] key = hmac(secretKey, day);
        key = hmac(key, region);
        key = hmac(key, service);
        key = hmac(key, "aws4_request");
        String signature = HEX.formatHex(hmac(key, stringToSign));
        String authorization = ALGORITHM + " Credential=" + accessKey + "/" + scope + ",SignedHeaders=" + signedHeaders
                + ",Signature=" + signature;
        return new Signed(amzDate, payloadSha256, canonicalRequest, stringToSign, signedHeaders, signature,
                authorization);
    }

    /** The Host header an HTTP client sends for this URI: the host, with the port unless it is the scheme's default. */
    public static String hostHeader(java.net.URI uri) {
        int port = uri.getPort();
        boolean https = "https".equalsIgnoreCase(uri.getScheme());
        boolean defaultPort = port == -1 || (https ? port == 443 : port == 80);
        return defaultPort ? uri.getHost() : uri.getHost() + ":" + port;
    }

    /** A decoded path ("/bucket/a key") as its canonical, once-encoded form ("/bucket/a%20key"): '/' is kept. */
    public static String canonicalUri(String decodedPath) {
        return decodedPath.isEmpty() ? "/" : uriEncode(decodedPath, false);
    }

    /** Decoded query parameters, encoded and sorted by name then value, joined with '&' ("" for none). */
    public static String canonicalQuery(Map<String, String> decodedParameters) {
        List<String[]> pairs = new ArrayList<>();
        for (Map.Entry<String, String> e : decodedParameters.entrySet()) {
            pairs.add(new String[]{uriEncode(e.getKey(), true),
                    uriEncode(e.getValue() == null ? "" : e.getValue(), true)});
        }
        pairs.sort(Comparator.<String[], String>comparing(p -> p[0]).thenComparing(p -> p[1]));
        StringBuilder out = new StringBuilder();
        for (String[] p : pairs) {
            out.append(out.length() == 0 ? "" : "&").append(p[0]).append('=').append(p[1]);
        }
        return out.toString();
    }

    /**
     * URI encoding as SigV4 defines it: the unreserved characters A-Z a-z 0-9 - . _ ~ are kept, every other byte of
     * the UTF-8 form becomes %XX (upper-case hex); '/' is kept when {@code encodeSlash} is false (paths).
     */
    public static String uriEncode(String s, boolean encodeSlash) {
        StringBuilder out = new StringBuilder(s.length() + 16);
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xFF;
            if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
                    || c == '_' || c == '~' || (c == '/' && !encodeSlash)) {
                out.append((char) c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
            }
        }
        return out.toString();
    }

    /** Lower-case hex SHA-256. */
    public static String sha256Hex(byte[] data) {
        return HEX.formatHex(sha256().digest(data));
    }

    /** Lower-case hex SHA-256 of a file, read once in small blocks (the file is never held in memory whole). */
    public static String sha256Hex(Path file) throws IOException {
        MessageDigest digest = sha256();
        byte[] buffer = new byte[64 * 1024];
        try (InputStream in = Files.newInputStream(file)) {
            for (int n; (n = in.read(buffer)) > 0;) {
                digest.update(buffer, 0, n);
            }
        }
        return HEX.formatHex(digest.digest());
    }

    /** The x-amz-date form of a time: 20130524T000000Z. */
    public static String amzDate(Instant time) {
        return AMZ_DATE.format(time);
    }

    /** Header values are trimmed and runs of spaces collapse to one. */
    static String canonicalHeaderValue(String value) {
        return value.trim().replaceAll(" +", " ");
    }

    private static byte[] hmac(byte[] key, String data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        }
    }

    private static String require(String value, String name) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(name + " is required");
        }
        return value;
    }

    @Override
    public String toString() {
        return "SigV4[" + accessKey + ", " + region + ", " + service + "]";
    }
}
