package com.convplatform.management.signed;

import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.management.ClientPkiResource;
import com.convplatform.management.Fixtures;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The chain download and the outbound-address guard (issue 22, SSRF): an account whose own DNS name points inside the
 * network (the cloud metadata address, a private address, one inside address among public ones, the NAT64 form of the
 * metadata address) gets a 400 CERT_FETCH_FAILED that says so in plain words, and nothing is connected to. The names
 * resolve through {@link TestResolver}; the guard is the service's own, with its default settings.
 */
@QuarkusTest
@QuarkusTestResource(ClientPkiResource.class)
class ChainDownloadGuardTest {

    @ParameterizedTest
    @CsvSource({"metadata.example.com, '169.254.169.254, a link-local address'",
            "private.example.com, '10.1.2.3, a private address'", "mixed.example.com, '127.0.0.1, a loopback address'",
            "nat64.example.com, 'an IPv6 form of a link-local address'"})
    void aChainUrlWhoseHostResolvesInsideTheNetworkIsRefusedWithoutSayingWhere(String fqdn, String why) {
        String accountId = Fixtures.account(fqdn);
        String clientId = Fixtures.client(accountId, "shop");
        ChainDownloadBusyTest.tokenRequest(fqdn, clientId, KeyPairs.ecP256().getPrivate(),
                "https://" + fqdn + "/client.api/chain.pem").then().statusCode(400)
                .body("error_code", equalTo("NOT_AUTHENTICATED"))
                // the plain-words reason is logged for the operator; the client learns nothing of the address
                .body("error_message", allOf(not(containsString("resolves to")), not(containsString(why)),
                        not(containsString("Exception"))));
    }
}
