package com.convplatform.crypto.url;

import java.net.URI;
import java.util.Objects;

/**
 * A certificate URL that passed a {@link CertificateUrlRule}: always https, lower-case host, no port (443 is implied),
 * a normalised path, no query, no fragment. {@link #toString()} is the exact URL to download, and the cache key.
 *
 * @param host the lower-case host name
 * @param path the normalised path (starts with '/')
 */
public record CertificateUrl(String host, String path) {
    public CertificateUrl {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(path, "path");
    }

    /** The port to connect to: always 443. */
    public int port() {
        return 443;
    }

    /** The normalised URL as a {@link URI}. */
    public URI toUri() {
        return URI.create(toString());
    }

    @Override
    public String toString() {
        return "https://" + host + path;
    }
}
