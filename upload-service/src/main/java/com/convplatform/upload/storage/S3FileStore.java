package com.convplatform.upload.storage;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Files as objects of an S3-compatible bucket, path-style. Chunked signing and the optional CRC checksums are off, so
 * any S3-compatible store takes a PUT.
 */
public final class S3FileStore implements FileStore, AutoCloseable {
    private final URI endpoint;
    private final String bucket;
    private final String prefix;
    private final S3Client s3;

    public S3FileStore(URI endpoint, String bucket, String prefix, String region, String accessKey, String secretKey,
            Duration connectTimeout, Duration requestTimeout) {
        this.endpoint = endpoint;
        this.bucket = bucket;
        this.prefix = prefix;
        this.s3 = S3Client.builder().endpointOverride(endpoint).region(Region.of(region)).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
                .serviceConfiguration(S3Configuration.builder().chunkedEncodingEnabled(false).build())
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .httpClientBuilder(UrlConnectionHttpClient.builder().connectionTimeout(connectTimeout)
                        .socketTimeout(requestTimeout))
                .overrideConfiguration(c -> c.apiCallAttemptTimeout(requestTimeout)).build();
    }

    @Override
    public void put(String id, Path source) throws IOException {
        String key = key(id);
        call("PUT", key, false, () -> s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromFile(source)));
    }

    @Override
    public Optional<InputStream> open(String id) throws IOException {
        String key = key(id);
        return Optional.ofNullable(call("GET", key, true,
                () -> s3.getObject(b -> b.bucket(bucket).key(key), ResponseTransformer.toInputStream())));
    }

    /** S3 answers 204 whether or not the object existed; some implementations answer 404 for a missing one. */
    @Override
    public void delete(String id) throws IOException {
        String key = key(id);
        call("DELETE", key, true, () -> s3.deleteObject(b -> b.bucket(bucket).key(key)));
    }

    /** A failure as an IOException naming the call; with {@code nullIfMissing}, null for a missing object. */
    private <T> T call(String method, String key, boolean nullIfMissing, Supplier<T> call) throws IOException {
        try {
            return call.get();
        } catch (S3Exception e) {
            AwsErrorDetails details = e.awsErrorDetails();
            if (nullIfMissing && e.statusCode() == 404
                    && (details == null || !"NoSuchBucket".equals(details.errorCode()))) {
                return null;
            }
            String code = details == null ? "" : " " + details.errorCode();
            String message = details == null ? e.getMessage() : details.errorMessage();
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
