package com.convplatform.crypto.net;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The outbound-address guard for every connection to a name a customer controls (certificate-chain downloads,
 * webhooks): the name is resolved once, within a deadline, and every address it resolves to must be a public unicast
 * address; the caller then connects to exactly those addresses, never to the name again (so a second DNS answer cannot
 * swap in an inside address after the check).
 * <p>
 * Refused, from the IANA special-purpose registries (IPv4 and IPv6) and the address-space registries: "this network"
 * 0/8, 10/8, shared 100.64/10, loopback 127/8, link-local 169.254/16 (cloud metadata), 172.16/12, the IETF block
 * 192.0.0/24, the documentation nets 192.0.2/24, 198.51.100/24, 203.0.113/24, AS112 192.31.196/24 and 192.175.48/24,
 * AMT 192.52.193/24, the 6to4 relay 192.88.99/24, 192.168/16, benchmarking 198.18/15, multicast 224/4, reserved 240/4
 * and broadcast; in IPv6 everything outside global unicast 2000::/3 (loopback, unspecified, IPv4-compatible ::/96,
 * SIIT ::ffff:0:0:0/96, discard 100::/64, unique-local fc00::/7, link-local fe80::/10, site-local, multicast, SRv6
 * 5f00::/16), and inside it the IETF block 2001::/23 (Teredo, benchmarking, ORCHID, AMT), documentation 2001:db8::/32
 * and 3fff::/20, AS112 2620:4f:8000::/48. Addresses that carry an IPv4 address (IPv4-mapped ::ffff:0:0/96, NAT64
 * 64:ff9b::/96, 6to4 2002::/16) are judged by the IPv4 address they carry; the local-use NAT64 prefix 64:ff9b:1::/48
 * is refused.
 * <p>
 * Our own code because no kept library does this: the JDK's {@code InetAddress.isSiteLocalAddress()} and its siblings
 * know a handful of these ranges and none of the IPv6 forms that carry an IPv4 address, and neither the JDK's HTTP
 * client nor Vert.x's lets the caller check the addresses a name resolves to before connecting to exactly those.
 */
public final class OutboundAddresses {
    /** Resolves a host name to its addresses; the system's resolver unless a test or staging seam is configured. */
    @FunctionalInterface
    public interface Resolver {
        InetAddress[] resolve(String host) throws UnknownHostException;
    }

    /** Why a name could not be used; {@link #getMessage()} is plain words, safe to show to the caller. */
    public static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;
        private final Reason reason;

        Refused(Reason reason, String message) {
            super(message, null, false, false);
            this.reason = reason;
        }

        public Reason reason() {
            return reason;
        }
    }

    /** The stable reason of a {@link Refused}. */
    public enum Reason {
        /** The name does not resolve. */
        UNRESOLVED,
        /** The resolver did not answer within the deadline, or too many lookups are in progress. */
        DNS_TIMEOUT,
        /** The name resolves to an address that is not public unicast. */
        ADDRESS_NOT_ALLOWED
    }

    /** The system's resolver. */
    public static final Resolver SYSTEM = InetAddress::getAllByName;

    /** Lookups run here so that a resolver that hangs costs its own thread, never the caller's deadline. */
    private static final ThreadPoolExecutor LOOKUPS = new ThreadPoolExecutor(0, 64, 30, TimeUnit.SECONDS,
            new SynchronousQueue<>(), r -> {
                Thread t = new Thread(r, "outbound-dns-lookup");
                t.setDaemon(true);
                return t;
            });

    private final Resolver resolver;
    private final boolean allowPrivate;

    private OutboundAddresses(Resolver resolver, boolean allowPrivate) {
        this.resolver = Objects.requireNonNull(resolver, "resolver");
        this.allowPrivate = allowPrivate;
    }

    /** The guard over the system's resolver: only public unicast addresses. */
    public static OutboundAddresses guarded() {
        return new OutboundAddresses(SYSTEM, false);
    }

    /**
     * A guard over {@code resolver}; {@code allowPrivate} turns the address check off (a seam for tests and private
     * deployments, off unless configured).
     */
    public static OutboundAddresses of(Resolver resolver, boolean allowPrivate) {
        return new OutboundAddresses(resolver, allowPrivate);
    }

    /**
     * Resolves {@code host} once, within {@code deadline}, and returns its addresses, all of them allowed.
     *
     * @throws Refused when it does not resolve in time, or resolves to any address that is not allowed (one inside
     *         address among public ones refuses the name: a DNS answer is the customer's to choose)
     */
    public List<InetAddress> resolve(String host, Duration deadline) throws Refused {
        String name = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        InetAddress[] addresses;
        try {
            addresses = CompletableFuture.supplyAsync(() -> {
                try {
                    return resolver.resolve(name);
                } catch (UnknownHostException e) {
                    return new InetAddress[0];
                }
            }, LOOKUPS).get(Math.max(1, deadline.toMillis()), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            throw new Refused(Reason.DNS_TIMEOUT, "too many host name lookups are in progress; try again shortly");
        } catch (TimeoutException e) {
            throw new Refused(Reason.DNS_TIMEOUT,
                    "the host name " + name + " did not resolve within " + deadline.toMillis() + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Refused(Reason.DNS_TIMEOUT, "the lookup of " + name + " was interrupted");
        } catch (ExecutionException e) {
            addresses = new InetAddress[0];
        }
        if (addresses == null || addresses.length == 0) {
            throw new Refused(Reason.UNRESOLVED, "the host name " + name + " does not resolve");
        }
        for (InetAddress a : addresses) {
            String why = allowPrivate ? null : refusal(a);
            if (why != null) {
                throw new Refused(Reason.ADDRESS_NOT_ALLOWED,
                        "the host " + name + " resolves to " + a.getHostAddress() + ", " + why + "; only public"
                                + " addresses are allowed");
            }
        }
        return List.of(addresses);
    }

    /** Why {@code a} is refused (plain words), or null when it is a public unicast address. */
    public static String refusal(InetAddress a) {
        byte[] b = a.getAddress();
        return a instanceof Inet4Address ? refusalV4(b) : refusalV6(b);
    }

    private static String refusalV4(byte[] b) {
        int b0 = b[0] & 0xff;
        int b1 = b[1] & 0xff;
        int b2 = b[2] & 0xff;
        if (b0 == 0) {
            return "a 'this network' address (0.0.0.0/8)";
        } else if (b0 == 127) {
            return "a loopback address";
        } else if (b0 == 169 && b1 == 254) {
            return "a link-local address (this includes cloud metadata endpoints)";
        } else if (b0 == 10 || b0 == 172 && (b1 & 0xf0) == 16 || b0 == 192 && b1 == 168) {
            return "a private address";
        } else if (b0 == 100 && (b1 & 0xc0) == 64) {
            return "a shared (carrier-grade NAT) address (100.64.0.0/10)";
        } else if (b0 == 198 && (b1 & 0xfe) == 18) {
            return "a benchmarking address (198.18.0.0/15)";
        } else if (b0 == 192 && b1 == 0 && (b2 == 0 || b2 == 2) || b0 == 198 && b1 == 51 && b2 == 100
                || b0 == 203 && b1 == 0 && b2 == 113) {
            return "an IETF protocol or documentation address";
        } else if (b0 == 192 && (b1 == 31 && b2 == 196 || b1 == 52 && b2 == 193 || b1 == 88 && b2 == 99
                || b1 == 175 && b2 == 48)) {
            return "a special-purpose anycast address";
        } else if (b0 >= 224) {
            return b0 < 240 ? "a multicast address" : "a reserved or broadcast address";
        }
        return null;
    }

    private static String refusalV6(byte[] b) {
        int w0 = word(b, 0);
        int w1 = word(b, 2);
        int w2 = word(b, 4);
        boolean zero80 = Arrays.equals(b, 0, 10, new byte[10], 0, 10);
        if (zero80 && word(b, 10) == 0xffff) {
            return embedded(Arrays.copyOfRange(b, 12, 16)); // IPv4-mapped
        } else if (w0 == 0x64 && w1 == 0xff9b && Arrays.equals(b, 4, 12, new byte[8], 0, 8)) {
            return embedded(Arrays.copyOfRange(b, 12, 16)); // NAT64, well-known prefix
        } else if (w0 == 0x64 && w1 == 0xff9b && w2 == 1) {
            return "a local-use NAT64 address (64:ff9b:1::/48)";
        } else if (w0 == 0x2002) {
            return embedded(Arrays.copyOfRange(b, 2, 6)); // 6to4
        } else if ((w0 & 0xe000) != 0x2000) {
            if (zero80 && word(b, 10) == 0 && word(b, 12) == 0 && (word(b, 14) & 0xfffe) == 0) {
                return word(b, 14) == 1 ? "a loopback address" : "the unspecified address";
            } else if ((w0 & 0xfe00) == 0xfc00) {
                return "an IPv6 unique-local address (fc00::/7)";
            } else if ((w0 & 0xffc0) == 0xfe80) {
                return "a link-local address";
            } else if ((w0 & 0xff00) == 0xff00) {
                return "a multicast address";
            }
            return "not a global unicast address (outside 2000::/3; this includes IPv4-compatible and SIIT forms)";
        } else if (w0 == 0x2001 && w1 < 0x200 || w0 == 0x2001 && w1 == 0xdb8 || w0 == 0x3fff && w1 < 0x1000
                || w0 == 0x2620 && w1 == 0x4f && w2 == 0x8000) {
            return "an IETF protocol, documentation or special-purpose address (2001::/23, 2001:db8::/32, 3fff::/20,"
                    + " 2620:4f:8000::/48; this includes Teredo)";
        }
        return null;
    }

    private static String embedded(byte[] v4) {
        String inner = refusalV4(v4);
        return inner == null ? null : "an IPv6 form of " + inner;
    }

    private static int word(byte[] b, int at) {
        return (b[at] & 0xff) << 8 | b[at + 1] & 0xff;
    }
}
