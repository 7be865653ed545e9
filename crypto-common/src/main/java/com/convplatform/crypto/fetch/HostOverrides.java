package com.convplatform.crypto.fetch;

import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A test and staging seam, off unless configured: {@code host=address:port} pairs used only to decide where to connect
 * when downloading a certificate (like curl's {@code --resolve}). TLS still presents and verifies the original host
 * name, and the URL rules still apply to the URL as sent.
 */
public final class HostOverrides {
    private static final HostOverrides NONE = new HostOverrides(Map.of());

    private final Map<String, InetSocketAddress> map;

    private HostOverrides(Map<String, InetSocketAddress> map) {
        this.map = Map.copyOf(map);
    }

    /** No overrides: connect to the URL's host on port 443. */
    public static HostOverrides none() {
        return NONE;
    }

    /** Exactly these overrides. */
    public static HostOverrides of(Map<String, InetSocketAddress> map) {
        Map<String, InetSocketAddress> lower = new HashMap<>();
        map.forEach((k, v) -> lower.put(k.toLowerCase(Locale.ROOT), v));
        return new HostOverrides(lower);
    }

    /**
     * Parses entries of the form {@code host=address:port}, for example {@code client.example.com=127.0.0.1:8443}.
     *
     * @throws IllegalArgumentException naming the entry that is not of that form
     */
    public static HostOverrides parse(List<String> entries) {
        Map<String, InetSocketAddress> map = new HashMap<>();
        for (String raw : entries) {
            String entry = raw.trim();
            if (entry.isEmpty()) {
                continue;
            }
            int eq = entry.indexOf('=');
            int colon = entry.lastIndexOf(':');
            if (eq <= 0 || colon <= eq + 1 || colon == entry.length() - 1) {
                throw new IllegalArgumentException("Not of the form host=address:port: '" + entry + "'");
            }
            String host = entry.substring(0, eq).toLowerCase(Locale.ROOT);
            String address = entry.substring(eq + 1, colon).replace("[", "").replace("]", "");
            int port;
            try {
                port = Integer.parseInt(entry.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("Port is not a number in '" + entry + "'");
            }
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("Port out of range in '" + entry + "'");
            }
            map.put(host, new InetSocketAddress(address, port));
        }
        return new HostOverrides(map);
    }

    /** The address to connect to instead of {@code host}:443, if one is configured. */
    public Optional<InetSocketAddress> lookup(String host) {
        return Optional.ofNullable(map.get(host.toLowerCase(Locale.ROOT)));
    }

    public boolean isEmpty() {
        return map.isEmpty();
    }
}
