package com.convplatform.upload.storage;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import com.convplatform.upload.config.UploadConfig;

import io.quarkus.runtime.Startup;
import io.quarkus.runtime.configuration.ConfigurationException;

/**
 * The one {@link FileStore}, chosen by {@code upload.storage.kind}: {@code local} (default) or {@code s3}. Made at
 * start-up, so a wrong or incomplete S3 setting stops the service with a message naming the property, not at the first
 * upload.
 */
@Dependent
public class FileStoreProducer {
    private static final Logger LOG = Logger.getLogger(FileStoreProducer.class);
    static final String P = "upload.storage.s3.";

    @Produces
    @Singleton
    @Startup
    FileStore fileStore(UploadConfig config) {
        FileStore store = create(config.storage());
        LOG.infof("File store: %s", store);
        return store;
    }

    /** The store the settings ask for; {@link ConfigurationException} naming each wrong or missing property. */
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
            List<String> env = missing.stream().map(p -> p.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_"))
                    .toList();
            throw new ConfigurationException("upload.storage.kind=s3 needs " + String.join(", ", missing)
                    + " (missing or empty; env " + String.join(", ", env) + ")", missing);
        }
        List<String> wrong = new ArrayList<>();
        URI uri = endpoint(endpoint);
        if (uri == null) {
            wrong.add(P + "endpoint must be an http or https URL with a host and no path, such as "
                    + "https://s3.eu-west-1.amazonaws.com or http://minio:9000, got '" + endpoint + "'");
        }
        if (!bucket.matches("[A-Za-z0-9._-]{1,255}") || bucket.matches("\\.+")) {
            wrong.add(P + "bucket must be a bucket name (letters, digits, '.', '-', '_'), got '" + bucket + "'");
        }
        String region = s3.region().trim();
        if (!region.matches("[A-Za-z0-9-]{1,64}")) {
            wrong.add(P + "region must be a region name such as us-east-1 or eu-west-1, got '" + region + "'");
        }
        String prefix = prefix(s3.prefix().map(String::trim).orElse(""));
        if (prefix == null) {
            wrong.add(P + "prefix must be path segments without empty, '.' or '..' parts, got '"
                    + s3.prefix().orElse("") + "'");
        }
        positive(s3.connectTimeout(), "connect-timeout", wrong);
        positive(s3.requestTimeout(), "request-timeout", wrong);
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

    private static void positive(Duration d, String name, List<String> wrong) {
        if (d.isZero() || d.isNegative()) {
            wrong.add(P + name + " must be positive, got " + d);
        }
    }

    /** The endpoint as a URI (a trailing '/' dropped), or null when it is not http(s)://host[:port]. */
    private static URI endpoint(String value) {
        try {
            URI uri = new URI(value.endsWith("/") ? value.substring(0, value.length() - 1) : value);
            boolean http = "http".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme());
            return http && uri.getHost() != null && uri.getRawUserInfo() == null && uri.getRawQuery() == null
                    && uri.getRawFragment() == null && (uri.getRawPath() == null || uri.getRawPath().isEmpty())
                            ? uri
                            : null;
        } catch (URISyntaxException e) {
            return null;
        }
    }

    /** "" or segments ending with '/' ("uploads" and "/uploads/" both become "uploads/"); null when malformed. */
    private static String prefix(String value) {
        String p = value.replaceFirst("^/+", "");
        if (p.isEmpty()) {
            return "";
        }
        p = p.endsWith("/") ? p : p + "/";
        for (String segment : p.substring(0, p.length() - 1).split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..")
                    || segment.chars().anyMatch(c -> c < 0x20 || c == 0x7F)) {
                return null;
            }
        }
        return p;
    }
}
