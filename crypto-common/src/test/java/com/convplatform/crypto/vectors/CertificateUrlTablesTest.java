package com.convplatform.crypto.vectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.testing.Vectors;
import com.convplatform.crypto.url.CertificateUrl;
import com.convplatform.crypto.url.HookCertUrlRule;
import com.convplatform.crypto.url.ManagementCertUrlRule;

/**
 * The public certificate-URL cases (Alexa SignatureCertChainUrl, AWS SNS SigningCertURL) from
 * {@code ../shared/vectors/cert-urls/README.md}, parsed from its tables at test time so the suite cannot drift, and
 * carried over to our rules: Alexa's host and {@code /echo.api/} prefix become the account FQDN and
 * {@code /client.api/}; SNS's {@code amazonaws.com} partitions become two platform domains and its {@code .pem} path
 * our exact hook path. Where the carried-over outcome differs by design, {@link #SNS_OUTCOME_DIFFERS} says why.
 */
class CertificateUrlTablesTest {
    private static final String FQDN = "client.example.com";
    private static final Pattern ROW = Pattern.compile("^\\| (\\w+) \\| `([^`]*)` \\| ([^|]+?) \\|");

    /**
     * SNS only trusts hosts whose first label is {@code sns}; our hook rule (spec 5.2) accepts any subdomain of a
     * platform domain, and the path is replaced by ours, so a {@code .pem} requirement does not carry over.
     */
    static final Map<String, String> SNS_OUTCOME_DIFFERS = Map.of(
            "X6", "any subdomain of the platform domain is accepted (spec 5.2), not only 'sns.'",
            "X9", "any subdomain of the platform domain is accepted (spec 5.2), not only 'sns.'",
            "X13", "any subdomain of the platform domain is accepted (spec 5.2), not only 'sns.'",
            "X14", "any subdomain is accepted and the path is mapped to ours, so the '.pem' rule has no counterpart");

    @TestFactory
    Stream<DynamicTest> alexaCasesOnTheManagementRule() throws IOException {
        ManagementCertUrlRule rule = new ManagementCertUrlRule(FQDN);
        List<DynamicTest> tests = new ArrayList<>();
        for (String[] row : rows("1. Alexa", "2. AWS SNS")) {
            String id = row[0];
            String url = row[1].replace("s3.amazonaws.com", FQDN).replace("S3.AMAZONAWS.COM", FQDN.toUpperCase())
                    .replace("/echo.api/", "/client.api/").replace("/EcHo.aPi/", "/ClIeNt.aPi/")
                    .replace("/ECHO.API/", "/CLIENT.API/");
            boolean accept = row[2].startsWith("accept");
            tests.add(dynamicTest(id + " " + url + " -> " + (accept ? "accept" : "reject"), () -> {
                if (accept) {
                    CertificateUrl normalised = rule.check(url);
                    assertEquals("https://" + FQDN, "https://" + normalised.host());
                    assertTrue(normalised.path().startsWith("/client.api/"));
                    if (id.equals("A9")) {
                        assertEquals("https://client.example.com/client.api/cert", normalised.toString());
                    }
                    if (id.equals("A3")) {
                        assertEquals("https://client.example.com/client.api/echo-api-cert.pem", normalised.toString());
                    }
                } else {
                    assertThrows(VerificationException.class, () -> rule.check(url));
                }
            }));
        }
        assertTrue(tests.size() >= 24, "the Alexa table shrank: " + tests.size());
        return tests.stream();
    }

    @TestFactory
    Stream<DynamicTest> snsCasesOnTheHookRule() throws IOException {
        HookCertUrlRule rule = HookCertUrlRule.forDomains("platform.example", "platform.example.cn");
        List<DynamicTest> tests = new ArrayList<>();
        for (String[] row : rows("2. AWS SNS", "## Sources")) {
            String id = row[0];
            String url = mapSns(row[1]);
            boolean accept = row[2].startsWith("accept");
            if (SNS_OUTCOME_DIFFERS.containsKey(id)) {
                accept = !accept;
            }
            boolean expected = accept;
            tests.add(dynamicTest(id + " " + url + " -> " + (expected ? "accept" : "reject"), () -> {
                if (expected) {
                    CertificateUrl normalised = rule.check(url);
                    assertEquals(HookCertUrlRule.PATH, normalised.path());
                } else {
                    assertThrows(VerificationException.class, () -> rule.check(url));
                }
            }));
        }
        assertTrue(tests.size() >= 25, "the SNS table shrank: " + tests.size());
        return tests.stream();
    }

    /** amazonaws.com(.cn) becomes platform.example(.cn); any path becomes the hook path. */
    private static String mapSns(String url) {
        String mapped = url.replace("amazonaws.com", "platform.example");
        Matcher m = Pattern.compile("^(https?://[^/]+)(/.*)$").matcher(mapped);
        return m.matches() ? m.group(1) + HookCertUrlRule.PATH : mapped;
    }

    private static List<String[]> rows(String fromHeading, String toHeading) throws IOException {
        List<String> lines = Files.readAllLines(Vectors.file("cert-urls/README.md"));
        List<String[]> out = new ArrayList<>();
        boolean in = false;
        for (String line : lines) {
            if (line.startsWith("## ") && line.contains(fromHeading)) {
                in = true;
                continue;
            }
            if (in && line.startsWith("## ") && line.contains(toHeading.replace("## ", ""))) {
                break;
            }
            if (!in) {
                continue;
            }
            Matcher m = ROW.matcher(line);
            if (m.find()) {
                out.add(new String[]{m.group(1), m.group(2), m.group(3).trim()});
            } else if (line.startsWith("| X3 |") || line.startsWith("| X4 |")) {
                // empty and blank URLs: `` and `   ` in the table
                String id = line.substring(2, 4);
                out.add(new String[]{id, id.equals("X3") ? "" : "   ", "reject"});
            }
        }
        return out;
    }
}
