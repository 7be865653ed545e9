package com.convplatform.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;

class SourceAddressesTest {
    @Test
    void anIpv4AddressIsItsOwnSource() {
        assertEquals("203.0.113.7", SourceAddresses.key("203.0.113.7"));
        assertNotEquals(SourceAddresses.key("203.0.113.7"), SourceAddresses.key("203.0.113.8"));
    }

    @Test
    void everyAddressOfOneIpv6Slash64IsOneSource() {
        String a = SourceAddresses.key("2001:db8:1:2::1");
        assertEquals("2001:db8:1:2::/64", a);
        assertEquals(a, SourceAddresses.key("2001:db8:1:2:ffff:ffff:ffff:ffff"));
        assertEquals(a, SourceAddresses.key("[2001:0db8:0001:0002:0:0:0:9]"));
        assertEquals(a, SourceAddresses.key("2001:db8:1:2::1%eth0"));
        assertNotEquals(a, SourceAddresses.key("2001:db8:1:3::1"));
    }

    @Test
    void anIpv4MappedAddressIsItsIpv4AddressAndJunkIsTakenAsItIs() {
        assertEquals("192.0.2.1", SourceAddresses.key("::ffff:192.0.2.1"));
        assertEquals("unknown", SourceAddresses.key(null));
        assertEquals("not:an:address:at:all:zz", SourceAddresses.key("not:an:address:at:all:zz"));
    }
}
