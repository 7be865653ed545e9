package com.convplatform.cli.cert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.RSAPrivateKey;
import java.security.interfaces.RSAPublicKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.convplatform.cli.CliRun;
import com.convplatform.cli.TestFiles;
import com.convplatform.crypto.Fingerprints;
import com.convplatform.crypto.chain.ChainValidator;
import com.convplatform.crypto.chain.HostnameMatcher;
import com.convplatform.crypto.pem.Pem;

class CertCreateCommandTest {
    @TempDir
    Path dir;

    @Test
    void createsEcKeyAndSelfSignedCertificateThatPassesThePlatformChecks() throws Exception {
        Path key = dir.resolve("k.pem");
        Path cert = dir.resolve("c.pem");
        CliRun.Result r = CliRun.run("cert", "create", "--fqdn", "client.example.com", "--out-key", key.toString(),
                "--out-cert", cert.toString());

        assertEquals(0, r.exitCode(), r::toString);
        assertTrue(r.out().contains("EC P-256"), r::toString);
        assertTrue(r.out().contains("--cert-uuid"), "says what to do next: " + r);
        assertTrue(TestFiles.read(key).startsWith("-----BEGIN PRIVATE KEY-----"), "PKCS#8");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(key)));
        PrivateKey privateKey = Pem.parsePrivateKey(TestFiles.read(key));
        assertInstanceOf(ECPrivateKey.class, privateKey);
        List<X509Certificate> certs = Pem.parseCertificates(TestFiles.read(cert));
        assertEquals(1, certs.size());
        X509Certificate c = certs.get(0);
        assertTrue(HostnameMatcher.matches(c, "client.example.com"), "FQDN in the SAN");
        ChainValidator.validateSelfSigned(c, "client.example.com", Instant.now());
        assertTrue(r.out().contains(Fingerprints.sha256(c)), "prints the SHA-256 fingerprint");
    }

    @Test
    void rsaOnRequest() throws Exception {
        Path key = dir.resolve("k.pem");
        Path cert = dir.resolve("c.pem");
        CliRun.Result r = CliRun.run("cert", "create", "--fqdn", "client.example.com", "--rsa", "--out-key",
                key.toString(), "--out-cert", cert.toString());

        assertEquals(0, r.exitCode(), r::toString);
        assertInstanceOf(RSAPrivateKey.class, Pem.parsePrivateKey(TestFiles.read(key)));
        RSAPublicKey pub = (RSAPublicKey) Pem.parseCertificates(TestFiles.read(cert)).get(0).getPublicKey();
        assertEquals(2048, pub.getModulus().bitLength());
        assertTrue(r.out().contains("SHA1withRSA"), r::toString);
    }

    @Test
    void daysSetTheValidityFromTheClock() throws Exception {
        Instant now = Instant.parse("2026-03-01T10:00:00Z");
        Path cert = dir.resolve("c.pem");
        CliRun.Result r = CliRun.run(Clock.fixed(now, ZoneOffset.UTC), InputStream.nullInputStream(),
                "cert", "create", "--fqdn", "client.example.com", "--days", "30", "--out-key",
                dir.resolve("k.pem").toString(), "--out-cert", cert.toString());

        assertEquals(0, r.exitCode(), r::toString);
        X509Certificate c = Pem.parseCertificates(TestFiles.read(cert)).get(0);
        assertEquals(now.plus(Duration.ofDays(30)), c.getNotAfter().toInstant());
        assertTrue(c.getNotBefore().toInstant().isBefore(now), "valid at once, with a little clock slack");
    }

    @Test
    void hostNameIsLowerCased() throws Exception {
        Path cert = dir.resolve("c.pem");
        CliRun.Result r = CliRun.run("cert", "create", "--fqdn", "Client.Example.COM", "--out-key",
                dir.resolve("k.pem").toString(), "--out-cert", cert.toString());

        assertEquals(0, r.exitCode(), r::toString);
        X509Certificate c = Pem.parseCertificates(TestFiles.read(cert)).get(0);
        assertEquals("CN=client.example.com", c.getSubjectX500Principal().getName());
    }

    @Test
    void refusesToOverwriteAnExistingKeyWithoutForce() throws Exception {
        Path key = TestFiles.write(dir, "k.pem", "precious key");
        Path cert = dir.resolve("c.pem");
        CliRun.Result r = CliRun.run("cert", "create", "--fqdn", "client.example.com", "--out-key", key.toString(),
                "--out-cert", cert.toString());

        assertEquals(2, r.exitCode(), r::toString);
        assertTrue(r.err().contains("already exists") && r.err().contains("--force"), r::toString);
        assertEquals("precious key", TestFiles.read(key), "nothing overwritten");
        assertFalse(Files.exists(cert), "nothing written");

        CliRun.Result forced = CliRun.run("cert", "create", "--fqdn", "client.example.com", "--out-key",
                key.toString(), "--out-cert", cert.toString(), "--force");
        assertEquals(0, forced.exitCode(), forced::toString);
        assertTrue(TestFiles.read(key).startsWith("-----BEGIN PRIVATE KEY-----"));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(key)),
                "an overwritten key is owner-only too");
    }

    @Test
    void usageErrorsWriteNothing() {
        String key = dir.resolve("k.pem").toString();
        String cert = dir.resolve("c.pem").toString();
        assertUsage(CliRun.run("cert", "create", "--fqdn", "10.0.0.1", "--out-key", key, "--out-cert", cert),
                "IP address");
        assertUsage(CliRun.run("cert", "create", "--fqdn", "client.example.com.", "--out-key", key, "--out-cert",
                cert), "CERT_URL_HOST");
        assertUsage(CliRun.run("cert", "create", "--fqdn", "client.example.com", "--days", "0", "--out-key", key,
                "--out-cert", cert), "--days");
        assertUsage(CliRun.run("cert", "create", "--fqdn", "client.example.com", "--rsa", "--ec", "--out-key", key,
                "--out-cert", cert), "mutually exclusive");
        assertUsage(CliRun.run("cert", "create", "--fqdn", "client.example.com", "--out-key", key, "--out-cert",
                key), "same file");
        assertUsage(CliRun.run("cert", "create", "--fqdn", "client.example.com", "--out-key",
                dir.resolve("missing/k.pem").toString(), "--out-cert", cert), "does not exist");
        assertUsage(CliRun.run("cert", "create", "--out-key", key), "--fqdn");
        assertFalse(Files.exists(dir.resolve("k.pem")));
        assertFalse(Files.exists(dir.resolve("c.pem")));
    }

    private static void assertUsage(CliRun.Result r, String expected) {
        assertEquals(2, r.exitCode(), r::toString);
        assertTrue(r.err().contains(expected), () -> "expected '" + expected + "' in\n" + r);
        assertTrue(r.out().isEmpty(), r::toString);
    }
}
