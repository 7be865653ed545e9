package com.convplatform.management.signed;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;

import com.convplatform.crypto.net.OutboundAddresses;

/**
 * DNS for the tests: a few names of the example zone that resolve to addresses inside a network, as a customer's DNS
 * could make its own name do; every other name goes to the system resolver. Replaces the service's default resolver
 * bean in the tests only.
 */
@ApplicationScoped
public class TestResolver implements OutboundAddresses.Resolver {
    static final Map<String, String[]> NAMES = Map.of("metadata.example.com", new String[]{"169.254.169.254"},
            "private.example.com", new String[]{"10.1.2.3"}, "mixed.example.com",
            new String[]{"93.184.216.34", "127.0.0.1"}, "nat64.example.com", new String[]{"64:ff9b::a9fe:a9fe"});

    @Override
    public InetAddress[] resolve(String host) throws UnknownHostException {
        String[] fixed = NAMES.get(host);
        if (fixed == null) {
            return InetAddress.getAllByName(host);
        }
        InetAddress[] out = new InetAddress[fixed.length];
        for (int i = 0; i < fixed.length; i++) {
            out[i] = InetAddress.getByName(fixed[i]);
        }
        return out;
    }
}
