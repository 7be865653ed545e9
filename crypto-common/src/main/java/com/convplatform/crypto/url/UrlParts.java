package com.convplatform.crypto.url;

import static com.convplatform.crypto.FailureCode.CERT_URL_HOST;
import static com.convplatform.crypto.FailureCode.CERT_URL_MALFORMED;
import static com.convplatform.crypto.FailureCode.CERT_URL_PORT;
import static com.convplatform.crypto.FailureCode.CERT_URL_SCHEME;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;

import com.convplatform.crypto.VerificationException;

/**
 * The shared, strict front half of both URL rules: split an absolute https URL into a lower-case host and a normalised
 * path, refusing everything that different HTTP stacks could read differently. The checks run in the spec's order
 * (scheme, host, path, port) once the URL is known to be well formed, so the reported failure is the first criterion.
 */
final class UrlParts {
    /** Longest URL we look at; real certificate URLs are far shorter. */
    static final int MAX_LENGTH = 2048;

    /** Characters allowed in a path besides letters and digits (RFC 3986 pchar and '/', without ';'). */
    private static final String PATH_CHARS = "-._~!$&'()*+,=:@/%";

    final String host;
    final String path;
    final String port; // null when absent

    private UrlParts(String host, String path, String port) {
        this.host = host;
        this.path = path;
        this.port = port;
    }

    /**
     * Parses {@code raw}. The scheme is checked here because nothing else can be read without it; the host is only
     * checked for syntax. Callers check host, path and port against their own rules, in that order.
     */
    static UrlParts parse(String raw) throws VerificationException {
        if (raw == null || raw.isBlank()) {
            throw new VerificationException(CERT_URL_MALFORMED, "The certificate URL is empty");
        }
        if (raw.length() > MAX_LENGTH) {
            throw new VerificationException(CERT_URL_MALFORMED,
                    "The certificate URL is longer than " + MAX_LENGTH + " characters");
        }
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c <= 0x20 || c >= 0x7f) {
                throw new VerificationException(CERT_URL_MALFORMED,
                        "The certificate URL contains a space, control or non-ASCII character at index " + i
                                + "; send a plain ASCII URL");
            }
            if (c == '\\') {
                throw new VerificationException(CERT_URL_MALFORMED,
                        "The certificate URL contains a backslash, which HTTP stacks read differently; use '/'");
            }
        }
        int colon = raw.indexOf(':');
        if (colon <= 0) {
            throw new VerificationException(CERT_URL_MALFORMED, "The certificate URL has no scheme: '" + raw + "'");
        }
        String scheme = raw.substring(0, colon);
        if (!scheme.equalsIgnoreCase("https")) {
            throw new VerificationException(CERT_URL_SCHEME,
                    "The certificate URL must use https, not '" + scheme + "'");
        }
        if (!raw.startsWith("//", colon + 1)) {
            throw new VerificationException(CERT_URL_MALFORMED,
                    "The certificate URL must be absolute: https://host/path");
        }
        String rest = raw.substring(colon + 3);
        if (rest.indexOf('#') >= 0) {
            throw new VerificationException(CERT_URL_MALFORMED, "The certificate URL may not have a fragment ('#')");
        }
        if (rest.indexOf('?') >= 0) {
            throw new VerificationException(CERT_URL_MALFORMED, "The certificate URL may not have a query ('?')");
        }
        int slash = rest.indexOf('/');
        String authority = slash < 0 ? rest : rest.substring(0, slash);
        String rawPath = slash < 0 ? "" : rest.substring(slash);
        if (authority.indexOf('@') >= 0) {
            throw new VerificationException(CERT_URL_MALFORMED,
                    "The certificate URL may not carry user information ('user@host')");
        }
        if (authority.startsWith("[")) {
            throw new VerificationException(CERT_URL_HOST,
                    "The certificate URL's host must be a DNS name, not an IP address");
        }
        String host = authority;
        String port = null;
        int portColon = authority.lastIndexOf(':');
        if (portColon >= 0) {
            host = authority.substring(0, portColon);
            port = authority.substring(portColon + 1);
        }
        if (host.isEmpty()) {
            throw new VerificationException(CERT_URL_MALFORMED, "The certificate URL has no host");
        }
        host = checkHostSyntax(host);
        return new UrlParts(host, normalisePath(rawPath), port);
    }

    /** Throws {@code CERT_URL_PORT} unless the port is absent or exactly "443". */
    void checkPort() throws VerificationException {
        if (port == null) {
            return;
        }
        if (port.isEmpty()) {
            throw new VerificationException(CERT_URL_MALFORMED, "The certificate URL has a ':' but no port number");
        }
        if (!port.equals("443")) {
            throw new VerificationException(CERT_URL_PORT,
                    "The certificate URL may only name port 443, not '" + port + "'");
        }
    }

    private static String checkHostSyntax(String host) throws VerificationException {
        if (host.indexOf('%') >= 0) {
            throw new VerificationException(CERT_URL_MALFORMED,
                    "The certificate URL's host may not be percent-encoded");
        }
        if (host.endsWith(".")) {
            throw new VerificationException(CERT_URL_HOST,
                    "The certificate URL's host may not end with a dot; send the name without it");
        }
        String lower = host.toLowerCase(Locale.ROOT);
        if (lower.length() > 253) {
            throw new VerificationException(CERT_URL_MALFORMED, "The certificate URL's host is too long");
        }
        boolean allNumeric = true;
        for (String label : lower.split("\\.", -1)) {
            if (label.isEmpty() || label.length() > 63) {
                throw new VerificationException(CERT_URL_MALFORMED,
                        "The certificate URL's host has an empty or over-long label: '" + host + "'");
            }
            if (label.startsWith("-") || label.endsWith("-")) {
                throw new VerificationException(CERT_URL_MALFORMED,
                        "A label of the certificate URL's host starts or ends with '-': '" + host + "'");
            }
            for (int i = 0; i < label.length(); i++) {
                char c = label.charAt(i);
                boolean ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
                if (!ok) {
                    throw new VerificationException(CERT_URL_MALFORMED,
                            "The certificate URL's host has a character that is not allowed in a DNS name: '" + c
                                    + "'");
                }
                if (!(c >= '0' && c <= '9')) {
                    allNumeric = false;
                }
            }
        }
        if (allNumeric || lower.matches(".*\\.[0-9]+$")) {
            throw new VerificationException(CERT_URL_HOST,
                    "The certificate URL's host must be a DNS name, not an IP address");
        }
        return lower;
    }

    /**
     * Collapses runs of '/', then removes dot-segments (RFC 3986, section 5.2.4). Percent-encoded dots, slashes,
     * backslashes and control characters are refused: a server could decode them after we checked the path.
     */
    static String normalisePath(String rawPath) throws VerificationException {
        for (int i = 0; i < rawPath.length(); i++) {
            char c = rawPath.charAt(i);
            if (c == ';') {
                throw new VerificationException(CERT_URL_MALFORMED, "The certificate URL's path has a ';'; path"
                        + " parameters are read differently by different servers (for example '..;/')");
            }
            if (PATH_CHARS.indexOf(c) < 0 && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z')
                    && !(c >= '0' && c <= '9')) {
                throw new VerificationException(CERT_URL_MALFORMED, "The certificate URL's path has the character '"
                        + c + "', which is not allowed in a URL path unless percent-encoded");
            }
        }
        for (int i = rawPath.indexOf('%'); i >= 0; i = rawPath.indexOf('%', i + 1)) {
            if (i + 2 >= rawPath.length() || hex(rawPath.charAt(i + 1)) < 0 || hex(rawPath.charAt(i + 2)) < 0) {
                throw new VerificationException(CERT_URL_MALFORMED,
                        "The certificate URL's path has a '%' that is not followed by two hex digits");
            }
            int value = hex(rawPath.charAt(i + 1)) * 16 + hex(rawPath.charAt(i + 2));
            if (value == '.' || value == '/' || value == '\\' || value == '%' || value == ';' || value < 0x20
                    || value >= 0x7f) {
                throw new VerificationException(CERT_URL_MALFORMED, "The certificate URL's path encodes '"
                        + rawPath.substring(i, i + 3) + "'; encoded dots, slashes, backslashes, '%', ';', control"
                        + " and non-ASCII characters are not allowed (send the plain character)");
            }
        }
        if (rawPath.isEmpty()) {
            return "/";
        }
        String collapsed = rawPath.replaceAll("/{2,}", "/");
        return removeDotSegments(collapsed);
    }

    /** RFC 3986 remove_dot_segments for an absolute path (one that starts with '/'). */
    static String removeDotSegments(String path) {
        Deque<String> out = new ArrayDeque<>();
        String[] segments = path.substring(1).split("/", -1);
        for (int i = 0; i < segments.length; i++) {
            String s = segments[i];
            boolean last = i == segments.length - 1;
            if (s.equals(".")) {
                if (last) {
                    out.addLast("");
                }
            } else if (s.equals("..")) {
                if (!out.isEmpty()) {
                    out.removeLast();
                }
                if (last) {
                    out.addLast("");
                }
            } else {
                out.addLast(s);
            }
        }
        return "/" + String.join("/", out);
    }

    private static int hex(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }
}
