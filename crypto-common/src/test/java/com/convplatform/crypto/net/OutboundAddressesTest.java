package com.convplatform.crypto.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.convplatform.crypto.net.OutboundAddresses.Reason;
import com.convplatform.crypto.net.OutboundAddresses.Refused;

/** The outbound-address guard: every special-purpose range refused, embedded IPv4 judged, one resolution in time. */
class OutboundAddressesTest {

    /** An IPv6 address kept as IPv6 (InetAddress.getByName turns an IPv4-mapped literal into IPv4). */
    static InetAddress v6(String literal) throws UnknownHostException {
        return Inet6Address.getByAddress(null, InetAddress.getByName(literal).getAddress().length == 16
                ? InetAddress.getByName(literal).getAddress()
                : mapped(InetAddress.getByName(literal).getAddress()), -1);
    }

    static byte[] mapped(byte[] v4) {
        byte[] b = new byte[16];
        b[10] = (byte) 0xff;
        b[11] = (byte) 0xff;
        System.arraycopy(v4, 0, b, 12, 4);
        return b;
    }

    @ParameterizedTest
    @ValueSource(strings = {"0.0.0.0", "0.1.2.3", "10.0.0.1", "10.255.255.255", "100.64.0.1", "100.127.255.254",
            "127.0.0.1", "127.1.2.3", "169.254.169.254", "172.16.0.1", "172.31.255.255", "192.0.0.1", "192.0.0.9",
            "192.0.0.170", "192.0.2.1", "192.31.196.1", "192.52.193.1", "192.88.99.1", "192.168.1.1",
            "192.175.48.1", "198.18.0.1", "198.19.255.255", "198.51.100.7", "203.0.113.9", "224.0.0.1",
            "239.255.255.250", "240.0.0.1", "255.255.255.255"})
    void everySpecialPurposeIpv4RangeIsRefused(String literal) throws Exception {
        assertNotNull(OutboundAddresses.refusal(InetAddress.getByName(literal)), literal);
    }

    @ParameterizedTest
    @ValueSource(strings = {"::", "::1", "::10.0.0.1", "::8.8.8.8", "::ffff:0:10.0.0.1", "::ffff:0:8.8.8.8",
            "64:ff9b:1::a00:1", "100::1", "5f00::1", "fc00::1", "fd12:3456::1", "fe80::1", "fec0::1", "ff02::1",
            "2001::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001:2::1", "2001:20::1", "2001:db8::1", "3fff::1",
            "3fff:fff::1", "2620:4f:8000::1", "64:ff9b::a00:1", "64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe",
            "2002:a00:1::1", "2002:7f00:1::1", "2002:c0a8:101::1", "4000::1", "e000::1"})
    void everySpecialPurposeIpv6RangeAndEveryEmbeddedInsideAddressIsRefused(String literal) throws Exception {
        assertNotNull(OutboundAddresses.refusal(v6(literal)), literal);
    }

    @Test
    void anIpv4MappedAddressIsJudgedByItsIpv4Address() throws Exception {
        assertNotNull(OutboundAddresses.refusal(v6("::ffff:10.0.0.1")));
        assertNotNull(OutboundAddresses.refusal(v6("::ffff:169.254.169.254")));
        assertNull(OutboundAddresses.refusal(v6("::ffff:8.8.8.8")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"8.8.8.8", "1.1.1.1", "93.184.216.34", "100.63.255.255", "100.128.0.1", "172.15.255.255",
            "172.32.0.1", "192.0.1.1", "192.0.3.1", "192.167.255.255", "198.17.255.255", "198.20.0.1",
            "223.255.255.254", "2a00:1450:4001:80b::200e", "2606:4700::6810:84e5", "2001:200::1", "2001:db9::1",
            "3ffe::1", "3fff:1000::1", "2620:4f:8001::1", "64:ff9b::808:808", "2002:808:808::1"})
    void publicUnicastAddressesPass(String literal) throws Exception {
        InetAddress a = InetAddress.getByName(literal);
        assertNull(OutboundAddresses.refusal(a), literal);
    }

    @Test
    void oneInsideAddressAmongPublicOnesRefusesTheName() {
        OutboundAddresses guard = OutboundAddresses.of(host -> new InetAddress[]{InetAddress.getByName("8.8.8.8"),
                InetAddress.getByName("10.1.2.3")}, false);
        Refused refused = assertThrows(Refused.class, () -> guard.resolve("hooks.example.com", Duration.ofSeconds(1)));
        assertEquals(Reason.ADDRESS_NOT_ALLOWED, refused.reason());
        assertEquals("the host hooks.example.com resolves to 10.1.2.3, a private address; only public addresses are"
                + " allowed", refused.getMessage());
    }

    @Test
    void theSeamAllowsInsideAddressesOnlyWhenAskedTo() throws Exception {
        OutboundAddresses open = OutboundAddresses.of(host -> new InetAddress[]{InetAddress.getByName("127.0.0.1")},
                true);
        assertEquals(List.of(InetAddress.getByName("127.0.0.1")), open.resolve("[localhost]", Duration.ofSeconds(1)));
        OutboundAddresses guarded = OutboundAddresses.guarded();
        Refused refused = assertThrows(Refused.class, () -> guarded.resolve("127.0.0.1", Duration.ofSeconds(1)));
        assertEquals(Reason.ADDRESS_NOT_ALLOWED, refused.reason());
    }

    @Test
    void aNameThatDoesNotResolveIsSaidInPlainWords() {
        OutboundAddresses guard = OutboundAddresses.of(host -> {
            throw new UnknownHostException(host + ": Name or service not known (internal resolver 10.0.0.2)");
        }, false);
        Refused refused = assertThrows(Refused.class, () -> guard.resolve("nx.example.com", Duration.ofSeconds(1)));
        assertEquals(Reason.UNRESOLVED, refused.reason());
        assertEquals("the host name nx.example.com does not resolve", refused.getMessage());
    }

    @Test
    void aResolverThatHangsIsCutOffAtTheDeadline() throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        OutboundAddresses guard = OutboundAddresses.of(host -> {
            try {
                never.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new InetAddress[0];
        }, false);
        long start = System.nanoTime();
        Refused refused = assertThrows(Refused.class, () -> guard.resolve("slow.example.com", Duration.ofMillis(200)));
        long tookMillis = (System.nanoTime() - start) / 1_000_000;
        never.countDown();
        assertEquals(Reason.DNS_TIMEOUT, refused.reason());
        assertTrue(refused.getMessage().contains("did not resolve within 200 ms"), refused.getMessage());
        assertTrue(tookMillis < 5_000, "returned after " + tookMillis + " ms");
    }
}
