package com.convplatform.upload.storage;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import com.convplatform.upload.config.UploadConfig;

import io.quarkus.runtime.Startup;
import io.quarkus.runtime.configuration.ConfigurationException;

/** The one {@link FileStore}, made at start-up so that a wrong S3 setting stops the service, not the first upload. */
@Dependent
public class FileStoreProducer {
    private static final Logger LOG = Logger.getLogger(FileStoreProducer.class);
    static final String P = "upload.storage.s3.";

    @Produces
    @Singleton
    @Startup
    FileStore fileStore(UploadConfig config) {
        FileStore store = open(config.storage());
        LOG.infof("File store: %s", store);
        return store;
    }

    /** {@link #create} the store, then make sure it takes a file ({@link FileStore#checkWritable}). */
    static FileStore open(UploadConfig.Storage storage) {
        FileStore store = create(storage);
        try {
            store.checkWritable();
        } catch (IOException | RuntimeException e) {
            boolean s3 = store instanceof S3FileStore;
            Set<String> names = s3
                    ? Set.of(P + "endpoint", P + "bucket", P + "access-key", P + "secret-key")
                    : Set.of("upload.storage.dir");
            throw new ConfigurationException("upload-service cannot store a file in " + store + " (" + e.getMessage()
                    + "): " + (s3
                            ? "check that " + P + "endpoint is reachable, that " + P + "bucket exists and that"
                                    + " " + P + "access-key and " + P
                                    + "secret-key may put and delete objects under the prefix"
                            : "check that upload.storage.dir can be written by the service's user"),
                    names);
        }
        return store;
    }

    public static FileStore create(UploadConfig.Storage storage) {
        String kind = storage.kind().trim();
        if (kind.equalsIgnoreCase("local")) {
            return new LocalFileStore(storage.dir());
        } else if (!kind.equalsIgnoreCase("s3")) {
            throw new ConfigurationException(
                    "upload.storage.kind must be 'local' or 's3', got '" + storage.kind() + "'",
                    Set.of("upload.storage.kind"));
        }
        UploadConfig.S3 s3 = storage.s3();
        Set<String> missing = new LinkedHashSet<>();
        String endpoint = required(s3.endpoint(), "endpoint", missing);
        String bucket = required(s3.bucket(), "bucket", missing);
        String accessKey = required(s3.accessKey(), "access-key", missing);
        String secretKey = required(s3.secretKey(), "secret-key", missing);
        if (!missing.isEmpty()) {
            String env = missing.stream().map(p -> p.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_"))
                    .collect(Collectors.joining(", "));
            throw new ConfigurationException("upload.storage.kind=s3 needs " + String.join(", ", missing)
                    + " (missing or empty; env " + env + ")", missing);
        }
        List<String> wrong = new ArrayList<>();
        URI uri = endpoint(endpoint);
        check(uri != null, "endpoint must be an http or https URL with a host and no path, such as"
                + " https://s3.eu-west-1.amazonaws.com or http://minio:9000, got '" + endpoint + "'", wrong);
        check(bucket.matches("[A-Za-z0-9._-]{1,255}") && !bucket.matches("\\.+"),
                "bucket must be a bucket name (letters, digits, '.', '-', '_'), got '" + bucket + "'", wrong);
        String region = s3.region().trim();
        check(region.matches("[A-Za-z0-9-]{1,64}"),
                "region must be a region name such as us-east-1 or eu-west-1, got '" + region + "'", wrong);
        String prefix = prefix(s3.prefix().map(String::trim).orElse(""));
        check(prefix != null, "prefix must be path segments without empty, '.' or '..' parts, got '"
                + s3.prefix().orElse("") + "'", wrong);
        check(s3.connectTimeout().compareTo(Duration.ZERO) > 0,
                "connect-timeout must be positive, got " + s3.connectTimeout(), wrong);
        check(s3.requestTimeout().compareTo(Duration.ZERO) > 0,
                "request-timeout must be positive, got " + s3.requestTimeout(), wrong);
        if (!wrong.isEmpty()) {
            throw new ConfigurationException(String.join("; ", wrong));
        }
        return new S3FileStore(uri, bucket, prefix, region, accessKey, secretKey, s3.connectTimeout(),
                s3.requestTimeout());
    }

    private static String required(Optional<String> value, String name, Set<String> missing) {
        if (value.isEmpty() || value.get().isBlank()) {
            missing.add(P + name);
            return null;
        }
        return value.get().trim();
    }

    private static void check(boolean ok, String problem, List<String> wrong) {
        if (!ok) {
            wrong.add(P + problem);
        }
    }

    /** The endpoint without a trailing '/', or null when it is not http(s)://host[:port]. */
    private static URI endpoint(String value) {
        try {
            URI uri = new URI(value.replaceFirst("/$", ""));
            boolean hostOnly = uri.getHost() != null && uri.getRawPath().isEmpty() && uri.getRawUserInfo() == null
                    && uri.getRawQuery() == null && uri.getRawFragment() == null;
            return hostOnly && String.valueOf(uri.getScheme()).matches("(?i)https?") ? uri : null;
        } catch (URISyntaxException e) {
            return null;
        }
    }

    /** "" or segments ending with '/'; null when malformed. */
    private static String prefix(String value) {
        String p = value.replaceFirst("^/+", "").replaceFirst("/$", "");
        if (p.isEmpty()) {
            return "";
        }
        boolean malformed = p.chars().anyMatch(c -> c < 0x20 || c == 0x7F) || Arrays.stream(p.split("/", -1))
                .anyMatch(segment -> segment.isEmpty() || segment.equals(".") || segment.equals(".."));
        return malformed ? null : p + "/";
    }
}
