package com.convplatform.hook.delivery;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.InetAddress;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AddressGuardTest {

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "127.8.9.10", "::1", "0.0.0.0", "::", "10.1.2.3", "172.16.0.1",
            "172.31.255.255", "192.168.1.1", "169.254.169.254", "169.254.0.1", "fe80::1", "100.64.0.1",
            "100.127.255.254", "198.18.0.1", "224.0.0.1", "ff02::1", "fc00::1", "fd12:3456::1", "::ffff:127.0.0.1",
            "::ffff:10.0.0.1", "::ffff:169.254.169.254", "64:ff9b::a00:1", "240.0.0.1", "0.1.2.3"})
    void internalAddressesAreRefused(String address) throws Exception {
        assertNotNull(HookPoster.refusal(InetAddress.getByName(address)), address);
    }

    @ParameterizedTest
    @ValueSource(strings = {"93.184.215.14", "8.8.8.8", "172.32.0.1", "100.128.0.1", "198.20.0.1",
            "2606:2800:220:1:248:1893:25c8:1946", "::ffff:8.8.8.8"})
    void publicAddressesAreAllowed(String address) throws Exception {
        assertNull(HookPoster.refusal(InetAddress.getByName(address)), address);
    }
}
