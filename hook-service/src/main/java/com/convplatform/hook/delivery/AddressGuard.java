package com.convplatform.hook.delivery;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;

/**
 * The SSRF guard: which resolved addresses a hook may be delivered to. Refused unless private networks are allowed:
 * unspecified, loopback, link-local (including the 169.254.169.254 metadata address), site-local (10/8, 172.16/12,
 * 192.168/16), carrier-grade NAT (100.64/10), benchmarking (198.18/15), multicast, IPv6 unique-local (fc00::/7),
 * and IPv4-mapped or NAT64 forms of any of those.
 */
public final class AddressGuard {
    private AddressGuard() {
    }

    /** Why the address is refused, or null when it is a public unicast address. */
    public static String refusal(InetAddress a) {
        if (a.isAnyLocalAddress()) {
            return "the unspecified address";
        }
        if (a.isLoopbackAddress()) {
            return "a loopback address";
        }
        if (a.isLinkLocalAddress()) {
            return "a link-local address (this includes cloud metadata endpoints)";
        }
        if (a.isSiteLocalAddress()) {
            return "a private (site-local) address";
        }
        if (a.isMulticastAddress()) {
            return "a multicast address";
        }
        byte[] b = a.getAddress();
        if (a instanceof Inet4Address) {
            int b0 = b[0] & 0xff;
            int b1 = b[1] & 0xff;
            if (b0 == 100 && b1 >= 64 && b1 <= 127) {
                return "a carrier-grade NAT address (100.64.0.0/10)";
            }
            if (b0 == 198 && (b1 == 18 || b1 == 19)) {
                return "a benchmarking address (198.18.0.0/15)";
            }
            if (b0 == 0 || b0 >= 240) {
                return "a reserved address";
            }
            return null;
        }
        if (a instanceof Inet6Address) {
            if ((b[0] & 0xfe) == 0xfc) {
                return "an IPv6 unique-local address (fc00::/7)";
            }
            boolean mapped = true;
            for (int i = 0; i < 10; i++) {
                mapped &= b[i] == 0;
            }
            if (mapped && (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff) {
                return embedded(b, 12);
            }
            if ((b[0] & 0xff) == 0x00 && (b[1] & 0xff) == 0x64 && (b[2] & 0xff) == 0xff && (b[3] & 0xff) == 0x9b) {
                return embedded(b, 12); // 64:ff9b::/96 NAT64
            }
        }
        return null;
    }

    private static String embedded(byte[] b, int offset) {
        try {
            byte[] v4 = {b[offset], b[offset + 1], b[offset + 2], b[offset + 3]};
            String inner = refusal(InetAddress.getByAddress(v4));
            return inner == null ? null : "an IPv6 form of " + inner;
        } catch (java.net.UnknownHostException e) {
            return "an unreadable address";
        }
    }
}
