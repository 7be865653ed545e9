package com.convplatform.support;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The key under which a request's source is counted by a per-source limit: an IPv4 address as it is, an IPv6 address
 * by its /64 prefix (one subscriber is routinely given a whole /64, so counting whole addresses would give one client
 * endless sources), an IPv4-mapped IPv6 address as its IPv4 address.
 */
public final class SourceAddresses {
    private SourceAddresses() {
    }

    /** The key of {@code address} (a literal, as Vert.x reports the peer); anything else is returned unchanged. */
    public static String key(String address) {
        if (address == null || address.isEmpty()) {
            return "unknown";
        }
        if (address.indexOf(':') < 0) {
            return address; // IPv4 (or a name, taken as it is)
        }
        try {
            String literal = address.startsWith("[") && address.endsWith("]")
                    ? address.substring(1, address.length() - 1)
                    : address;
            int zone = literal.indexOf('%');
            InetAddress parsed = InetAddress.getByName(zone < 0 ? literal : literal.substring(0, zone));
            byte[] bytes = parsed.getAddress();
            if (!(parsed instanceof Inet6Address)) {
                return parsed.getHostAddress(); // an IPv4-mapped address, which the JDK gives back as IPv4
            }
            StringBuilder prefix = new StringBuilder(24);
            for (int i = 0; i < 8; i += 2) {
                prefix.append(Integer.toHexString((bytes[i] & 0xff) << 8 | bytes[i + 1] & 0xff)).append(':');
            }
            return prefix.append(":/64").toString();
        } catch (UnknownHostException | RuntimeException e) {
            return address; // not a literal: counted as it is
        }
    }
}
