package com.convplatform.upload.storage;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Files as objects of an S3-compatible bucket (AWS S3, MinIO, Ceph RGW, Cloudflare R2, ...), so that several replicas
 * share them: the AWS SDK for Java v2 over the JDK's HttpURLConnection, path-style addressing
 * ({@code <endpoint>/<bucket>/<prefix><id>}), every request signed with Signature Version 4. A PUT sends the file from
 * disk with its Content-Length and its SHA-256 as {@code x-amz-content-sha256} (over http the SDK signs the payload;
 * chunked signing and the optional CRC checksums are off, so any S3-compatible store takes it); a GET streams the
 * object. The SDK's standard retries apply (3 attempts).
 */
public final class S3FileStore implements FileStore, AutoCloseable {
    private final URI endpoint;
    private final String bucket;
    private final String prefix;
    private final S3Client s3;

    /**
     * @param endpoint scheme, host and optional port, no path (https://s3.eu-west-1.amazonaws.com, http://minio:9000)
     * @param prefix prepended to every id to form the object key ("" or for example "uploads/")
     * @param requestTimeout time for a whole call: a PUT of up to 10 MiB, or until a GET's answer has begun
     */
    public S3FileStore(URI endpoint, String bucket, String prefix, String region, String accessKey, String secretKey,
            Duration connectTimeout, Duration requestTimeout) {
        this.endpoint = endpoint;
        this.bucket = bucket;
        this.prefix = prefix;
        this.s3 = S3Client.builder().endpointOverride(endpoint).region(Region.of(region)).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
                .serviceConfiguration(S3Configuration.builder().chunkedEncodingEnabled(false).build())
                .requestChecksumCalculation(
                        software.amazon.awssdk.core.checksums.RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(
                        software.amazon.awssdk.core.checksums.ResponseChecksumValidation.WHEN_REQUIRED)
                .httpClientBuilder(UrlConnectionHttpClient.builder().connectionTimeout(connectTimeout)
                        .socketTimeout(requestTimeout))
                .overrideConfiguration(c -> c.apiCallAttemptTimeout(requestTimeout)).build();
    }

    @Override
    public void put(String id, Path source) throws IOException {
        String key = key(id);
        call("PUT", key, () -> s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromFile(source)));
    }

    @Override
    public Optional<InputStream> open(String id) throws IOException {
        String key = key(id);
        try {
            return Optional.of(call("GET", key,
                    () -> s3.getObject(b -> b.bucket(bucket).key(key), ResponseTransformer.toInputStream())));
        } catch (IOException e) {
            if (e.getCause() instanceof S3Exception s && missing(s)) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** S3 answers 204 whether or not the object existed; some implementations answer 404 for a missing one. */
    @Override
    public void delete(String id) throws IOException {
        String key = key(id);
        try {
            call("DELETE", key, () -> s3.deleteObject(b -> b.bucket(bucket).key(key)));
        } catch (IOException e) {
            if (!(e.getCause() instanceof S3Exception s && missing(s))) {
                throw e;
            }
        }
    }

    private static boolean missing(S3Exception e) {
        return e.statusCode() == 404 && (e.awsErrorDetails() == null
                || !"NoSuchBucket".equals(e.awsErrorDetails().errorCode()));
    }

    /**
     * Runs one call; a failure becomes an IOException naming the call and, when S3 answered, its status and code:
     * "S3 PUT bucket/key: HTTP 403 SignatureDoesNotMatch (message)".
     */
    private <T> T call(String method, String key, java.util.function.Supplier<T> call) throws IOException {
        try {
            return call.get();
        } catch (S3Exception e) {
            String code = e.awsErrorDetails() == null ? "" : " " + e.awsErrorDetails().errorCode();
            String message = e.awsErrorDetails() == null ? e.getMessage() : e.awsErrorDetails().errorMessage();
            throw new IOException("S3 " + method + " " + bucket + "/" + key + ": HTTP " + e.statusCode() + code + " ("
                    + message + ")", e);
        } catch (SdkException e) {
            throw new IOException("S3 " + method + " " + bucket + "/" + key + " at " + endpoint + " failed: "
                    + e.getMessage(), e);
        }
    }

    private String key(String id) {
        if (!FileIds.isValid(id)) {
            throw new IllegalArgumentException("not a file id");
        }
        return prefix + id;
    }

    @Override
    public void close() {
        s3.close();
    }

    @Override
    public String toString() {
        return "S3FileStore[" + endpoint + "/" + bucket + "/" + prefix + "]";
    }
}
