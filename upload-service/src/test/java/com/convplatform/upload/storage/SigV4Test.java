package com.convplatform.upload.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The signer against AWS's published "Examples of signature calculations" for S3 requests authenticated in the
 * Authorization header (payload in a single chunk):
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html - the GET Object (with a Range
 * header), PUT Object (with Date and x-amz-storage-class, key "test$file.text"), GET Bucket Lifecycle and GET Bucket
 * (List Objects) examples, all with access key AKIAIOSFODNN7EXAMPLE, the example secret, 20130524T000000Z,
 * us-east-1 and the host examplebucket.s3.amazonaws.com (virtual-hosted style, so the paths carry no bucket).
 */
class SigV4Test {
    static final SigV4 EXAMPLE = new SigV4("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "us-east-1", "s3");
    static final Instant TIME = Instant.parse("2013-05-24T00:00:00Z");
    static final String HOST = "examplebucket.s3.amazonaws.com";

    @Test
    void getObjectWithRange() {
        SigV4.Signed s = EXAMPLE.sign("GET", HOST, SigV4.canonicalUri("/test.txt"), "", Map.of("Range", "bytes=0-9"),
                SigV4.EMPTY_PAYLOAD_SHA256, TIME);
        assertEquals("GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n"
                + "x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
                + "x-amz-date:20130524T000000Z\n\nhost;range;x-amz-content-sha256;x-amz-date\n"
                + "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", s.canonicalRequest());
        assertEquals("AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
                + "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972", s.stringToSign());
        assertEquals("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41", s.signature());
        assertEquals("AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41", s.authorization());
        assertEquals("20130524T000000Z", s.headers().get("x-amz-date"));
        assertEquals(SigV4.EMPTY_PAYLOAD_SHA256, s.headers().get("x-amz-content-sha256"));
    }

    @Test
    void putObjectWithStorageClassAndADollarInTheKey(@TempDir Path dir) throws Exception {
        Path body = Files.writeString(dir.resolve("body"), "Welcome to Amazon S3.", StandardCharsets.UTF_8);
        String payload = SigV4.sha256Hex(body);
        assertEquals("44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072", payload);
        assertEquals(payload, SigV4.sha256Hex("Welcome to Amazon S3.".getBytes(StandardCharsets.UTF_8)));
        Map<String, String> extra = new LinkedHashMap<>();
        extra.put("Date", "Fri, 24 May 2013 00:00:00 GMT");
        extra.put("x-amz-storage-class", "REDUCED_REDUNDANCY");
        String uri = SigV4.canonicalUri("/test$file.text");
        assertEquals("/test%24file.text", uri);
        SigV4.Signed s = EXAMPLE.sign("PUT", HOST, uri, "", extra, payload, TIME);
        assertEquals("date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class", s.signedHeaders());
        assertEquals("98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd", s.signature());
    }

    @Test
    void getBucketLifecycleAQueryParameterWithoutValue() {
        String query = SigV4.canonicalQuery(Map.of("lifecycle", ""));
        assertEquals("lifecycle=", query);
        SigV4.Signed s = EXAMPLE.sign("GET", HOST, SigV4.canonicalUri("/"), query, Map.of(),
                SigV4.EMPTY_PAYLOAD_SHA256, TIME);
        assertEquals("fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543", s.signature());
    }

    @Test
    void listObjectsWithSortedQueryParameters() {
        Map<String, String> params = new LinkedHashMap<>();
        params.put("prefix", "J");
        params.put("max-keys", "2");
        String query = SigV4.canonicalQuery(params);
        assertEquals("max-keys=2&prefix=J", query);
        SigV4.Signed s = EXAMPLE.sign("GET", HOST, "/", query, Map.of(), SigV4.EMPTY_PAYLOAD_SHA256, TIME);
        assertEquals("34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7", s.signature());
    }

    @Test
    void encodingKeepsOnlyUnreservedCharactersAndSlashesInPaths() {
        assertEquals("/bucket/uploads/a%20b%2Bc~d_e-f.g/%C3%A9%25",
                SigV4.canonicalUri("/bucket/uploads/a b+c~d_e-f.g/é%"));
        assertEquals("a%2Fb%3D%26", SigV4.uriEncode("a/b=&", true));
        assertEquals("a=1&a-b=3&a1=2",
                SigV4.canonicalQuery(new LinkedHashMap<>(Map.of("a1", "2", "a", "1", "a-b", "3"))));
        assertEquals("", SigV4.canonicalQuery(Map.of()));
    }

    @Test
    void theHostHeaderCarriesOnlyANonDefaultPort() {
        assertEquals("s3.eu-west-1.amazonaws.com", SigV4.hostHeader(URI.create("https://s3.eu-west-1.amazonaws.com")));
        assertEquals("s3.example", SigV4.hostHeader(URI.create("https://s3.example:443")));
        assertEquals("minio:9000", SigV4.hostHeader(URI.create("http://minio:9000")));
        assertEquals("minio", SigV4.hostHeader(URI.create("http://minio:80")));
        assertEquals("127.0.0.1:443", SigV4.hostHeader(URI.create("http://127.0.0.1:443")));
    }

    @Test
    void headerValuesAreTrimmedAndAHeaderCannotBeSignedTwice() {
        SigV4.Signed spaced = EXAMPLE.sign("GET", HOST, "/test.txt", "", Map.of("Range", "  bytes=0-9  "),
                SigV4.EMPTY_PAYLOAD_SHA256, TIME);
        assertEquals("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41", spaced.signature());
        assertThrows(IllegalArgumentException.class, () -> EXAMPLE.sign("GET", HOST, "/", "",
                Map.of("X-Amz-Date", "20130524T000000Z"), SigV4.EMPTY_PAYLOAD_SHA256, TIME));
        assertThrows(IllegalArgumentException.class, () -> new SigV4("", "secret", "us-east-1", "s3"));
    }
}
