package com.convplatform.cli.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import com.convplatform.cli.CliRun;

class CheckUrlCommandTest {

    @Test
    void managementUrlsAreAcceptedWithTheNormalisedUrl() {
        CliRun.Result r = CliRun.run("check-url", "--kind", "management", "--fqdn", "client.example.com",
                "https://client.example.com/client.api/chain.pem",
                "HTTPS://Client.Example.com:443/client.api/../client.api/./chain.pem");

        assertEquals(0, r.exitCode(), r::toString);
        assertEquals(List.of(
                "ACCEPT https://client.example.com/client.api/chain.pem -> https://client.example.com/client.api/chain.pem",
                "ACCEPT HTTPS://Client.Example.com:443/client.api/../client.api/./chain.pem"
                        + " -> https://client.example.com/client.api/chain.pem"),
                r.out().lines().toList());
        assertEquals("", r.err());
    }

    @Test
    void oneRejectedUrlMakesExitCodeOneAndEveryUrlIsStillReported() {
        CliRun.Result r = CliRun.run("check-url", "--kind", "management", "--fqdn", "client.example.com",
                "https://client.example.com/client.api/chain.pem",
                "http://client.example.com/client.api/chain.pem",
                "https://evil.example.com/client.api/chain.pem",
                "https://client.example.com/Client.api/chain.pem",
                "https://client.example.com:8443/client.api/chain.pem",
                "https://user@client.example.com/client.api/chain.pem",
                "https://client.example.com/client.api/../secret.pem");

        assertEquals(1, r.exitCode(), r::toString);
        List<String> lines = r.out().lines().toList();
        assertEquals(7, lines.size(), r::toString);
        assertTrue(lines.get(0).startsWith("ACCEPT "));
        assertTrue(lines.get(1).startsWith("REJECT http://client.example.com/client.api/chain.pem: CERT_URL_SCHEME: "),
                lines.get(1));
        assertTrue(lines.get(2).startsWith("REJECT https://evil.example.com/client.api/chain.pem: CERT_URL_HOST: "),
                lines.get(2));
        assertTrue(lines.get(2).contains("client.example.com"), "names the expected host: " + lines.get(2));
        assertTrue(lines.get(3).contains(": CERT_URL_PATH: "), lines.get(3));
        assertTrue(lines.get(4).contains(": CERT_URL_PORT: "), lines.get(4));
        assertTrue(lines.get(5).contains(": CERT_URL_MALFORMED: "), lines.get(5));
        assertTrue(lines.get(6).contains(": CERT_URL_PATH: "), lines.get(6));
        // One fix per failure code seen, on standard error.
        assertTrue(r.err().contains("fix CERT_URL_PORT: Drop the port"), r::toString);
        assertTrue(r.err().contains("fix CERT_URL_PATH: Put the chain file under /client.api/"), r::toString);
        assertEquals(5, r.err().lines().count(), r::toString);
    }

    @Test
    void hookUrlsFollowTheHookRule() {
        CliRun.Result r = CliRun.run("check-url", "--kind", "hook", "--domain", "platform.example", "--domain",
                "staging-platform.example",
                "https://hooks.platform.example/platform/hooks/certificate/",
                "https://hooks.platform.example//platform/hooks/certificate/",
                "https://a.b.staging-platform.example/platform/hooks/certificate/");

        assertEquals(0, r.exitCode(), r::toString);
        assertEquals(List.of(
                "ACCEPT https://hooks.platform.example/platform/hooks/certificate/"
                        + " -> https://hooks.platform.example/platform/hooks/certificate/",
                "ACCEPT https://hooks.platform.example//platform/hooks/certificate/"
                        + " -> https://hooks.platform.example/platform/hooks/certificate/",
                "ACCEPT https://a.b.staging-platform.example/platform/hooks/certificate/"
                        + " -> https://a.b.staging-platform.example/platform/hooks/certificate/"),
                r.out().lines().toList());
    }

    @Test
    void hookLookAlikeHostsAreRejected() {
        CliRun.Result r = CliRun.run("check-url", "--kind", "HOOK", "--domain", "platform.com",
                "https://platform.com/platform/hooks/certificate/",
                "https://evilplatform.com/platform/hooks/certificate/",
                "https://platform.com.evil.com/platform/hooks/certificate/",
                "https://hooks.platform.com/platform/hooks/certificate/x");

        assertEquals(1, r.exitCode(), r::toString);
        List<String> lines = r.out().lines().toList();
        assertTrue(lines.get(0).contains(": CERT_URL_HOST: "), lines.get(0));
        assertTrue(lines.get(1).contains(": CERT_URL_HOST: "), lines.get(1));
        assertTrue(lines.get(2).contains(": CERT_URL_HOST: "), lines.get(2));
        assertTrue(lines.get(3).contains(": CERT_URL_PATH: "), lines.get(3));
        assertTrue(
                r.err().contains(
                        "fix CERT_URL_HOST: The certificate URL's host is not a subdomain of a platform domain"),
                r::toString);
    }

    @Test
    void eachKindNeedsItsOwnOptions() {
        assertUsage(CliRun.run("check-url", "--kind", "management", "https://x.example/client.api/"), "--fqdn");
        assertUsage(CliRun.run("check-url", "--kind", "hook", "https://x.example/platform/hooks/certificate/"),
                "--domain");
        assertUsage(CliRun.run("check-url", "--kind", "hook", "--domain", "com", "https://x.com/"),
                "Not a platform domain");
        assertUsage(CliRun.run("check-url", "--kind", "hook", "--domain", "platform.example", "--fqdn", "a.b",
                "https://x.platform.example/platform/hooks/certificate/"), "--fqdn is for --kind management");
        assertUsage(CliRun.run("check-url", "--kind", "management", "--fqdn", "a.b", "--domain", "x.y",
                "https://a.b/client.api/"), "--domain is for --kind hook");
        assertUsage(CliRun.run("check-url", "--kind", "upload", "--fqdn", "a.b", "https://a.b/client.api/"),
                "--kind");
        assertUsage(CliRun.run("check-url", "--kind", "management", "--fqdn", "a.b"), "URL");
    }

    private static void assertUsage(CliRun.Result r, String expected) {
        assertEquals(2, r.exitCode(), r::toString);
        assertTrue(r.err().contains(expected), () -> "expected '" + expected + "' in\n" + r);
        assertEquals("", r.out(), r::toString);
    }
}
