package com.convplatform.crypto.chain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.time.Instant;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import com.convplatform.crypto.FailureCode;
import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.pki.CertificateBuilder;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.crypto.testing.TestPki;

/** Issue 2, rule d, the name part: the FQDN in the SANs, case-insensitive, wildcards per RFC 6125. */
class HostnameRulesTest {
    static TestPki pki;
    static KeyPair key;

    @BeforeAll
    static void pki() {
        pki = TestPki.create();
        key = KeyPairs.ecP256();
    }

    @ParameterizedTest(name = "{0} vs {1} -> {2}")
    @CsvSource({
            // exact names, any case, a trailing dot on either side ignored
            "client.example.com, client.example.com, true",
            "CLIENT.Example.com, client.example.COM, true",
            "client.example.com., client.example.com, true",
            "client.example.com, client.example.com., true",
            "client.example.com, other.example.com, false",
            "client.example.com, example.com, false",
            "example.com, client.example.com, false",
            "client.example.com, client.example.com.evil, false",
            // a wildcard is the whole left-most label and matches exactly one label
            "*.example.com, client.example.com, true",
            "*.EXAMPLE.com, Client.example.COM, true",
            "*.example.com, a.b.example.com, false",
            "*.example.com, example.com, false",
            "*.example.com, .example.com, false",
            "*.client.example.com, client.example.com, false",
            // partial, inner, double and over-broad wildcards do not match
            "c*.example.com, client.example.com, false",
            "*t.example.com, client.example.com, false",
            "client.*.com, client.example.com, false",
            "*.*.example.com, a.b.example.com, false",
            "*, client, false",
            "*.com, example.com, false",
            // no wildcard over an IDN A-label; non-ASCII never matches
            "*.example.com, xn--bcher-kva.example.com, false",
            "xn--bcher-kva.example.com, xn--bcher-kva.example.com, true",
            "bücher.example.com, bücher.example.com, false"})
    void dnsNamesMatchPerRfc6125(String pattern, String name, boolean expected) {
        assertEquals(expected, HostnameMatcher.dnsMatches(pattern, name));
    }

    @Test
    void onlyTheSubjectAlternativeNamesCountNeverTheCommonName() {
        X509Certificate cnOnly = CertificateBuilder.forKey(key.getPublic()).commonName("client.example.com")
                .issuer(pki.intermediate, pki.intermediateKey.getPrivate()).build();
        assertFalse(HostnameMatcher.matches(cnOnly, "client.example.com"));
        X509Certificate several = pki.leaf(key, "www.example.com", "Client.Example.com").cert();
        assertTrue(HostnameMatcher.matches(several, "client.example.com"));
        assertTrue(HostnameMatcher.matches(several, "www.example.com"));
        assertFalse(HostnameMatcher.matches(several, "example.com"));
        assertFalse(HostnameMatcher.matches(several, ""));
        assertFalse(HostnameMatcher.matches(several, null));
    }

    @Test
    void anIpReferenceNeverMatchesADnsNameThatLooksLikeIt() {
        X509Certificate dnsLooksLikeIp = pki.leaf(key, "127.0.0.1").cert();
        assertFalse(HostnameMatcher.matches(dnsLooksLikeIp, "127.0.0.1"));
    }

    @Test
    void theValidatorNamesTheMissingNameAndTheSansItFound() throws Exception {
        ChainValidator validator = new ChainValidator(pki.anchors());
        TestPki.Leaf leaf = pki.leaf(key, "www.example.com", "api.example.com");
        VerificationException e = assertThrows(VerificationException.class,
                () -> validator.validate(leaf.chain(), "client.example.com", Instant.now()));
        assertEquals(FailureCode.CERT_NAME_MISMATCH, e.code());
        assertEquals("The signing certificate's Subject Alternative Names [www.example.com, api.example.com] do not"
                + " include 'client.example.com'", e.getMessage());
        // the required name in another case passes, and the chain is returned in path order
        TestPki.Leaf good = pki.leaf(key, "CLIENT.example.com");
        ValidatedChain chain = validator.validate(good.chain(), "client.EXAMPLE.com", Instant.now());
        assertEquals(good.cert(), chain.leaf());
        assertEquals(good.chain(), chain.certificates());
        X509Certificate noSan = CertificateBuilder.forKey(key.getPublic()).commonName("client.example.com")
                .issuer(pki.intermediate, pki.intermediateKey.getPrivate()).build();
        VerificationException none = assertThrows(VerificationException.class, () -> validator
                .validate(java.util.List.of(noSan, pki.intermediate), "client.example.com", Instant.now()));
        assertEquals(FailureCode.CERT_NAME_MISMATCH, none.code());
        assertTrue(none.getMessage().contains("(none)"), none.getMessage());
    }
}
