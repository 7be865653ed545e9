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
 * Files as objects of an S3-compatible bucket, shared by replicas: the AWS SDK v2 over the JDK's HttpURLConnection,
 * path-style keys ({@code <endpoint>/<bucket>/<prefix><id>}), Signature Version 4. Chunked signing and the optional CRC
 * checksums are off, so any S3-compatible store takes a PUT; the SDK's standard retries apply (3 attempts).
 */
public final class S3FileStore implements FileStore, AutoCloseable {
    private final URI endpoint;
    private final String bucket;
    private final String prefix;
    private final S3Client s3;

    /** @param requestTimeout a whole PUT of up to 10 MiB, or until a GET's answer has begun */
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

    /**
     * Runs one call; a failure is an IOException naming it ("S3 PUT b/key: HTTP 403 SignatureDoesNotMatch (...)").
     * With {@code nullIfMissing}, a 404 for the object (not NoSuchBucket) returns null instead.
     */
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
