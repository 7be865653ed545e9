package com.convplatform.hook.signing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import com.convplatform.crypto.pki.CertificateBuilder;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.support.ConfigChecks;

/**
 * The start-up check of the signing files (a failed one stops the start as every ConfigChecks problem does:
 * config.BadConfigurationTest): the key must be the certificate's, an RSA one, and the certificate must name the host
 * of hook.certificate-url; each problem names the settings to mend.
 */
class SigningMatchTest {
    private static final KeyPair RSA = KeyPairs.rsa(2048);
    private static final X509Certificate CERT = certificate(RSA, "hooks.platform.example");

    private static X509Certificate certificate(KeyPair pair, String host) {
        Instant now = Instant.now();
        return CertificateBuilder.forKey(pair.getPublic()).commonName(host).dnsNames(host)
                .validity(now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(30))).serverAuth()
                .selfSigned(pair.getPrivate());
    }

    @Test
    void theFilesOfOneRotationForTheUrlsHostPass() {
        assertEquals(List.of(), SigningChecks.matching(RSA.getPrivate(), CERT, "hooks.platform.example").problems());
    }

    @Test
    void aKeyOfAnotherRotationAndACertificateForAnotherHostAreBothNamed() {
        ConfigChecks checks = SigningChecks.matching(KeyPairs.rsa(2048).getPrivate(), CERT, "hooks.other.example");
        assertEquals(2, checks.problems().size(), checks.problems().toString());
        assertTrue(checks.problems().get(0).startsWith("the key of hook.signing.key-file and the first certificate"
                + " of hook.signing.chain-file (CN=hooks.platform.example) must be one RSA pair"), checks.problems()
                        .get(0));
        assertTrue(checks.problems().get(1).contains("must name the host of hook.certificate-url"
                + " (hooks.other.example) in its SAN"), checks.problems().get(1));
        assertEquals(Set.of("hook.signing.key-file", "hook.signing.chain-file", "hook.certificate-url"),
                checks.settings());
    }

    @Test
    void anEcKeyIsNoRsaPair() {
        KeyPair ec = KeyPairs.ecP256();
        ConfigChecks checks = SigningChecks.matching(ec.getPrivate(), certificate(ec, "hooks.platform.example"),
                "hooks.platform.example");
        assertEquals(1, checks.problems().size(), checks.problems().toString());
        assertTrue(checks.problems().get(0).contains("must be one RSA pair"), checks.problems().get(0));
    }
}
