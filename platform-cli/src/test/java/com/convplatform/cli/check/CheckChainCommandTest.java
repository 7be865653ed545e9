package com.convplatform.cli.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.convplatform.cli.CliRun;
import com.convplatform.cli.TestFiles;
import com.convplatform.crypto.pki.CertificateBuilder;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.crypto.testing.TestPki;

class CheckChainCommandTest {
    static final String FQDN = "client.example.com";
    static TestPki pki;
    static TestPki.Leaf leaf;

    @TempDir
    Path dir;

    @BeforeAll
    static void pki() {
        pki = TestPki.create();
        leaf = pki.leaf(KeyPairs.ecP256(), FQDN);
    }

    private String root() {
        return TestFiles.cert(dir, "root.pem", pki.root).toString();
    }

    private String chain(List<X509Certificate> certs) {
        return TestFiles.certs(dir, "chain.pem", certs).toString();
    }

    @Test
    void validChainToAnExtraRootIsOk() {
        CliRun.Result r = CliRun.run("check-chain", "--chain", chain(leaf.chain()), "--fqdn", FQDN, "--trust",
                root());

        assertEquals(0, r.exitCode(), r::toString);
        List<String> lines = r.out().lines().toList();
        assertEquals("OK", lines.get(0));
        assertTrue(r.out().contains("subject:     CN=" + FQDN), r::toString);
        assertTrue(r.out().contains("not after:   " + leaf.cert().getNotAfter().toInstant()), r::toString);
        assertTrue(r.out().contains("SHA1withECDSA"), r::toString);
        assertTrue(r.out().contains("Test Root CA"), "names the root reached: " + r);
    }

    @Test
    void withoutTheRootTheChainIsUntrusted() {
        CliRun.Result r = CliRun.run("check-chain", "--chain", chain(leaf.chain()), "--fqdn", FQDN);

        assertFailure(r, "CERT_UNTRUSTED");
        assertTrue(r.out().contains("--trust"), "the fix mentions --trust: " + r);
    }

    @Test
    void missingIntermediateIsUntrusted() {
        CliRun.Result r = CliRun.run("check-chain", "--chain", chain(List.of(leaf.cert())), "--fqdn", FQDN,
                "--trust", root());

        assertFailure(r, "CERT_UNTRUSTED");
        assertTrue(r.out().contains("intermediates"), r::toString);
    }

    @Test
    void expiredLeafIsReportedWithItsDate() {
        Instant now = Instant.now();
        TestPki.Leaf expired = pki.leaf(KeyPairs.ecP256(), now.minus(30, ChronoUnit.DAYS),
                now.minus(1, ChronoUnit.DAYS), FQDN);

        CliRun.Result r = CliRun.run("check-chain", "--chain", chain(expired.chain()), "--fqdn", FQDN, "--trust",
                root());

        assertFailure(r, "CERT_EXPIRED");
        assertTrue(r.out().contains(expired.cert().getNotAfter().toInstant().toString()), "says when: " + r);
        assertTrue(r.out().contains("fix:   Renew the certificate"), r::toString);
    }

    @Test
    void atMovesTheCheckInTime() {
        String chain = chain(leaf.chain());
        String root = root();
        Instant afterExpiry = leaf.cert().getNotAfter().toInstant().plus(1, ChronoUnit.DAYS);
        assertFailure(CliRun.run("check-chain", "--chain", chain, "--fqdn", FQDN, "--trust", root, "--at",
                afterExpiry.toString()), "CERT_EXPIRED");
        assertFailure(CliRun.run("check-chain", "--chain", chain, "--fqdn", FQDN, "--trust", root, "--at",
                "2001-01-01"), "CERT_NOT_YET_VALID");
        CliRun.Result ok = CliRun.run("check-chain", "--chain", chain, "--fqdn", FQDN, "--trust", root, "--at",
                Instant.now().plus(30, ChronoUnit.DAYS).toString());
        assertEquals(0, ok.exitCode(), ok::toString);
    }

    @Test
    void wrongFqdnIsANameMismatch() {
        CliRun.Result r = CliRun.run("check-chain", "--chain", chain(leaf.chain()), "--fqdn", "other.example.com",
                "--trust", root());

        assertFailure(r, "CERT_NAME_MISMATCH");
        assertTrue(r.out().contains("other.example.com") && r.out().contains("[" + FQDN + "]"),
                "expected and found names: " + r);
    }

    @Test
    void weakKeyIsRefusedAsThePlatformWould() {
        TestPki.Leaf weak = pki.leaf(KeyPairs.rsa(1024), FQDN);

        CliRun.Result r = CliRun.run("check-chain", "--chain", chain(weak.chain()), "--fqdn", FQDN, "--trust",
                root());

        assertFailure(r, "CERT_KEY_UNSUPPORTED");
        assertTrue(r.out().contains("1024"), r::toString);
    }

    @Test
    void notPemIsMalformed() {
        Path junk = TestFiles.write(dir, "junk.pem", "this is not a certificate\n");

        assertFailure(CliRun.run("check-chain", "--chain", junk.toString(), "--fqdn", FQDN), "CERT_MALFORMED");
        Path key = TestFiles.key(dir, "key.pem", KeyPairs.ecP256());
        assertFailure(CliRun.run("check-chain", "--chain", key.toString(), "--fqdn", FQDN), "CERT_MALFORMED");
    }

    @Test
    void selfSignedCertificateIsCheckedAsARegisteredOne() {
        KeyPair pair = KeyPairs.ecP256();
        X509Certificate self = CertificateBuilder.selfSigned(pair, FQDN, Instant.now().plus(10, ChronoUnit.DAYS),
                FQDN);
        String file = chain(List.of(self));

        CliRun.Result ok = CliRun.run("check-chain", "--chain", file, "--fqdn", FQDN, "--self-signed");
        assertEquals(0, ok.exitCode(), ok::toString);
        assertTrue(ok.out().contains("self-signed"), ok::toString);

        assertFailure(CliRun.run("check-chain", "--chain", file, "--fqdn", "x.example.com", "--self-signed"),
                "CERT_NAME_MISMATCH");
        assertFailure(CliRun.run("check-chain", "--chain", file, "--fqdn", FQDN), "CERT_UNTRUSTED");
        assertFailure(CliRun.run("check-chain", "--chain", chain(leaf.chain()), "--fqdn", FQDN, "--self-signed"),
                "CERT_MALFORMED");
        assertFailure(CliRun.run("check-chain", "--chain", chain(List.of(leaf.cert())), "--fqdn", FQDN,
                "--self-signed"), "CERT_CHAIN_INVALID");
    }

    @Test
    void usageErrors() {
        String chain = chain(leaf.chain());
        assertUsage(CliRun.run("check-chain", "--chain", dir.resolve("none.pem").toString(), "--fqdn", FQDN),
                "does not exist");
        assertUsage(CliRun.run("check-chain", "--chain", chain, "--fqdn", FQDN, "--trust",
                TestFiles.write(dir, "t.pem", "junk").toString()), "--trust file");
        assertUsage(CliRun.run("check-chain", "--chain", chain, "--fqdn", FQDN, "--at", "yesterday"),
                "2027-01-31T12:00:00Z");
        assertUsage(CliRun.run("check-chain", "--chain", chain, "--fqdn", FQDN, "--self-signed", "--trust", root()),
                "--trust has no effect");
        assertUsage(CliRun.run("check-chain", "--chain", chain), "--fqdn");
    }

    private static void assertFailure(CliRun.Result r, String code) {
        assertEquals(1, r.exitCode(), r::toString);
        List<String> lines = r.out().lines().toList();
        assertTrue(lines.get(0).startsWith("FAIL " + code + ": "), r::toString);
        assertTrue(lines.get(1).startsWith("  means: "), r::toString);
        assertTrue(lines.get(2).startsWith("  fix:   "), r::toString);
    }

    private static void assertUsage(CliRun.Result r, String expected) {
        assertEquals(2, r.exitCode(), r::toString);
        assertTrue(r.err().contains(expected), () -> "expected '" + expected + "' in\n" + r);
    }
}
