package com.convplatform.crypto.vectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.chain.ChainValidator;
import com.convplatform.crypto.chain.TrustAnchors;
import com.convplatform.crypto.testing.Vectors;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * x509-limbo (C2SP) SERVER cases through {@link ChainValidator}: trust = trusted_certs, pool =
 * untrusted_intermediates, leaf = peer_certificate, name = expected_peer_name, time = validation_time (or now), and
 * serverAuth required when the case asks for it. Cases whose features we do not implement are skipped with the
 * reason; cases that run and disagree with the expected result must be listed in {@link #KNOWN_DIVERGENCES} with a
 * reason, so the suite stays green and honest: an unlisted disagreement fails, and so does a listed case that
 * starts to agree. Counts are printed and quoted in the module README.
 */
class X509LimboTest {
    private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";

    /** Features of x509-limbo we do not implement, with the reason. */
    static final Map<String, String> UNSUPPORTED_FEATURES = Map.of(
            "has-crl", "revocation (CRLs) is not checked: certificates are short-lived and fetched per URL",
            "max-chain-depth", "no caller-chosen depth limit beyond our fixed 10-certificate cap",
            "name-constraint-dn", "directory-name constraints are left to the JDK and not asserted",
            "has-policy-constraints", "certificate policies are not asserted",
            "pedantic-webpki-subscriber-key", "pedantic Web PKI key rules are not enforced by the chain check",
            "pedantic-webpki-eku", "pedantic Web PKI EKU rules are not enforced",
            "pedantic-serial-number", "serial-number pedantry is left to the JDK parser",
            "pedantic-public-suffix-wildcard", "no public-suffix list is shipped",
            "pedantic-rfc5280", "pedantic RFC 5280 checks are not enforced");

    /** Cases that run and disagree, with why. Each was reviewed. */
    static final Map<String, String> KNOWN_DIVERGENCES = Map.ofEntries(
            Map.entry("cve::cve-2025-61727",
                    "a wildcard SAN is not tested against an excluded DNS subtree (RFC 5280/9525 ambiguity); the JDK accepts"),
            Map.entry("pathlen::validation-ignores-pathlen-in-leaf",
                    "the leaf is a CA certificate; we require an end-entity signing certificate with digitalSignature"),
            Map.entry("rfc5280::aki::critical-aki",
                    "AKI/SKI presence and criticality are not enforced; the JDK chains by name and verifies each signature"),
            Map.entry("rfc5280::aki::intermediate-missing-aki",
                    "AKI/SKI presence and criticality are not enforced; the JDK chains by name and verifies each signature"),
            Map.entry("rfc5280::aki::leaf-missing-aki",
                    "AKI/SKI presence and criticality are not enforced; the JDK chains by name and verifies each signature"),
            Map.entry("rfc5280::ca-as-leaf",
                    "the leaf is a CA certificate; we require an end-entity signing certificate (Web PKI side of the conflicting pair)"),
            Map.entry("rfc5280::eku::ee-eku-empty",
                    "an empty extendedKeyUsage is read by the JDK as absent"),
            Map.entry("rfc5280::nc::excluded-different-constraint-type",
                    "root name constraints are enforced (fail closed); the JDK also applies DNS constraints to a CA subject CN, refusing this permitted chain"),
            Map.entry("rfc5280::nc::nc-forbids-alternate-chain-ica",
                    "the JDK path builder does not backtrack to an alternate intermediate after a name-constraint failure (fails closed)"),
            Map.entry("rfc5280::nc::nc-forbids-dnsname-wildcard-san",
                    "wildcard SANs are not tested against excluded subtrees by the JDK"),
            Map.entry("rfc5280::nc::nc-permits-invalid-dns-san",
                    "the JDK does not reject syntactically invalid SANs under name constraints"),
            Map.entry("rfc5280::nc::nc-permits-invalid-ip-san",
                    "the JDK does not reject syntactically invalid SANs under name constraints"),
            Map.entry("rfc5280::nc::not-allowed-in-ee-critical",
                    "name constraints in an end-entity certificate are ignored by the JDK"),
            Map.entry("rfc5280::nc::not-allowed-in-ee-noncritical",
                    "name constraints in an end-entity certificate are ignored by the JDK"),
            Map.entry("rfc5280::nc::permitted-different-constraint-type",
                    "root name constraints are enforced (fail closed); the JDK also applies DNS constraints to a CA subject CN, refusing this permitted chain"),
            Map.entry("rfc5280::nc::permitted-dns-match",
                    "root name constraints are enforced (fail closed); the JDK also applies DNS constraints to a CA subject CN, refusing this permitted chain"),
            Map.entry("rfc5280::nc::permitted-dns-match-more",
                    "root name constraints are enforced (fail closed); the JDK also applies DNS constraints to a CA subject CN, refusing this permitted chain"),
            Map.entry("rfc5280::nc::permitted-ipv4-match",
                    "root name constraints are enforced (fail closed); the JDK also applies DNS constraints to a CA subject CN, refusing this permitted chain"),
            Map.entry("rfc5280::nc::permitted-ipv6-match",
                    "root name constraints are enforced (fail closed); the JDK also applies DNS constraints to a CA subject CN, refusing this permitted chain"),
            Map.entry("rfc5280::nc::permitted-self-issued",
                    "root name constraints are enforced (fail closed); the JDK also applies DNS constraints to a CA subject CN, refusing this permitted chain"),
            Map.entry("rfc5280::root-inconsistent-ca-extensions",
                    "a configured trust anchor is trusted as given: only its validity period is checked, not its extensions or key"),
            Map.entry("rfc5280::root-missing-basic-constraints",
                    "a configured trust anchor is trusted as given: only its validity period is checked, not its extensions or key"),
            Map.entry("rfc5280::root-non-critical-basic-constraints",
                    "a configured trust anchor is trusted as given: only its validity period is checked, not its extensions or key"),
            Map.entry("rfc5280::ski::critical-ski",
                    "AKI/SKI presence and criticality are not enforced; the JDK chains by name and verifies each signature"),
            Map.entry("rfc5280::ski::intermediate-missing-ski",
                    "AKI/SKI presence and criticality are not enforced; the JDK chains by name and verifies each signature"),
            Map.entry("rfc5280::ski::root-missing-ski",
                    "AKI/SKI presence and criticality are not enforced; the JDK chains by name and verifies each signature"),
            Map.entry("rfc5280::unknown-critical-extension-root",
                    "a configured trust anchor is trusted as given: only its validity period is checked, not its extensions or key"),
            Map.entry("webpki::aki::root-with-aki-all-fields",
                    "a configured trust anchor is trusted as given: only its validity period is checked, not its extensions or key"),
            Map.entry("webpki::aki::root-with-aki-authoritycertissuer",
                    "a configured trust anchor is trusted as given: only its validity period is checked, not its extensions or key"),
            Map.entry("webpki::aki::root-with-aki-authoritycertserialnumber",
                    "a configured trust anchor is trusted as given: only its validity period is checked, not its extensions or key"),
            Map.entry("webpki::aki::root-with-aki-missing-keyidentifier",
                    "a configured trust anchor is trusted as given: only its validity period is checked, not its extensions or key"),
            Map.entry("webpki::aki::root-with-aki-ski-mismatch",
                    "a configured trust anchor is trusted as given: only its validity period is checked, not its extensions or key"),
            Map.entry("webpki::cn::case-mismatch",
                    "the subject CN is never consulted, so the CA/B Forum CN-must-be-in-SAN consistency rule is not enforced (the SAN matches)"),
            Map.entry("webpki::cn::ipv4-hex-mismatch",
                    "the subject CN is never consulted, so the CA/B Forum CN-must-be-in-SAN consistency rule is not enforced (the SAN matches)"),
            Map.entry("webpki::cn::ipv4-leading-zeros-mismatch",
                    "the subject CN is never consulted, so the CA/B Forum CN-must-be-in-SAN consistency rule is not enforced (the SAN matches)"),
            Map.entry("webpki::cn::ipv6-non-rfc5952-mismatch",
                    "the subject CN is never consulted, so the CA/B Forum CN-must-be-in-SAN consistency rule is not enforced (the SAN matches)"),
            Map.entry("webpki::cn::ipv6-uncompressed-mismatch",
                    "the subject CN is never consulted, so the CA/B Forum CN-must-be-in-SAN consistency rule is not enforced (the SAN matches)"),
            Map.entry("webpki::cn::ipv6-uppercase-mismatch",
                    "the subject CN is never consulted, so the CA/B Forum CN-must-be-in-SAN consistency rule is not enforced (the SAN matches)"),
            Map.entry("webpki::cn::not-in-san",
                    "the subject CN is never consulted, so the CA/B Forum CN-must-be-in-SAN consistency rule is not enforced (the SAN matches)"),
            Map.entry("webpki::cn::punycode-not-in-san",
                    "the subject CN is never consulted, so the CA/B Forum CN-must-be-in-SAN consistency rule is not enforced (the SAN matches)"),
            Map.entry("webpki::cn::utf8-vs-punycode-mismatch",
                    "the subject CN is never consulted, so the CA/B Forum CN-must-be-in-SAN consistency rule is not enforced (the SAN matches)"),
            Map.entry("webpki::forbidden-dsa-root",
                    "a configured trust anchor is trusted as given: only its validity period is checked, not its extensions or key"),
            Map.entry("webpki::forbidden-rsa-not-divisible-by-8-in-root",
                    "a configured trust anchor is trusted as given: only its validity period is checked, not its extensions or key"),
            Map.entry("webpki::forbidden-weak-rsa-key-in-root",
                    "a configured trust anchor is trusted as given: only its validity period is checked, not its extensions or key"),
            Map.entry("webpki::malformed-aia",
                    "the authorityInfoAccess extension is not parsed (no AIA fetching)"),
            Map.entry("webpki::nc::intermediate-permitted-excluded-subtrees-both-empty-sequences",
                    "the JDK accepts an empty name-constraints extension"),
            Map.entry("webpki::nc::intermediate-permitted-excluded-subtrees-both-null",
                    "the JDK accepts an empty name-constraints extension"),
            Map.entry("webpki::nc::permitted-dns-match-noncritical",
                    "root name constraints are enforced (fail closed); the JDK also applies DNS constraints to a CA subject CN, refusing this permitted chain"),
            Map.entry("webpki::san::san-critical-with-nonempty-subject",
                    "SAN criticality is not policed"));

    private static final Map<String, Integer> SKIPPED = new TreeMap<>();
    private static final int[] RUN = new int[2]; // [ran, agreed]

    @AfterAll
    static void printCounts() {
        System.out.printf("x509-limbo: ran=%d agreed=%d known-divergences=%d skipped=%s%n", RUN[0], RUN[1],
                KNOWN_DIVERGENCES.size(), SKIPPED);
    }

    @TestFactory
    Stream<DynamicTest> serverCases() throws IOException {
        JsonNode root = new ObjectMapper().readTree(Vectors.file("x509-limbo/limbo.json").toFile());
        List<DynamicTest> tests = new ArrayList<>();
        int total = 0;
        for (JsonNode tc : root.get("testcases")) {
            total++;
            String id = tc.get("id").asText();
            String skip = skipReason(tc);
            if (skip != null) {
                SKIPPED.merge(skip, 1, Integer::sum);
                continue;
            }
            tests.add(dynamicTest(id, () -> run(tc, id)));
        }
        assertEquals(root.get("testcases").size(), total);
        return tests.stream();
    }

    private static void run(JsonNode tc, String id) throws Exception {
        boolean expectSuccess = tc.get("expected_result").asText().equals("SUCCESS");
        List<X509Certificate> trusted;
        List<X509Certificate> pool;
        X509Certificate leaf;
        try {
            trusted = certs(tc.get("trusted_certs"));
            pool = certs(tc.get("untrusted_intermediates"));
            leaf = cert(tc.get("peer_certificate").asText());
        } catch (java.security.cert.CertificateException e) {
            // The JDK's parser refuses the certificate outright; so would Pem.parseCertificates (CERT_MALFORMED).
            RUN[0]++;
            assertEquals(false, expectSuccess, id + ": expected SUCCESS but a certificate does not parse: " + e);
            RUN[1]++;
            return;
        }
        JsonNode peer = tc.get("expected_peer_name");
        String name = peer == null || peer.isNull() ? null : peer.get("value").asText();
        Instant at = tc.get("validation_time").isNull()
                ? Instant.now()
                : OffsetDateTime.parse(tc.get("validation_time").asText()).toInstant();
        ChainValidator validator = new ChainValidator(TrustAnchors.of(trusted));
        for (JsonNode eku : tc.get("extended_key_usage")) {
            if (eku.asText().equals("serverAuth")) {
                validator = validator.requiringExtendedKeyUsage(SERVER_AUTH);
            }
        }
        boolean succeeded;
        String why;
        try {
            validator.validate(leaf, pool, name, at);
            succeeded = true;
            why = "accepted";
        } catch (VerificationException e) {
            succeeded = false;
            why = e.code() + ": " + e.getMessage();
        }
        RUN[0]++;
        boolean agrees = succeeded == expectSuccess;
        if (KNOWN_DIVERGENCES.containsKey(id)) {
            assertTrue(!agrees, id + " is listed as a known divergence but now agrees: remove it from the list");
            return;
        }
        assertEquals(expectSuccess, succeeded, id + ": expected " + tc.get("expected_result").asText()
                + " but we said " + why);
        RUN[1]++;
    }

    private static String skipReason(JsonNode tc) {
        if (!tc.get("validation_kind").asText().equals("SERVER")) {
            return "CLIENT validation kind (we validate server-style DNS names only)";
        }
        JsonNode peer = tc.get("expected_peer_name");
        if (peer != null && !peer.isNull() && peer.get("kind").asText().equals("RFC822")) {
            return "RFC822 peer name";
        }
        for (JsonNode f : tc.get("features")) {
            String reason = UNSUPPORTED_FEATURES.get(f.asText());
            if (reason != null) {
                return "feature " + f.asText() + " (" + reason + ")";
            }
        }
        if (tc.has("signature_algorithms") && tc.get("signature_algorithms").size() > 0) {
            return "caller-constrained signature algorithms";
        }
        for (JsonNode eku : tc.get("extended_key_usage")) {
            if (!eku.asText().equals("serverAuth")) {
                return "extended key usage other than serverAuth required";
            }
        }
        for (JsonNode ku : tc.get("key_usage")) {
            if (!ku.asText().equals("digitalSignature")) {
                return "key usage other than digitalSignature required";
            }
        }
        if (tc.has("crls") && tc.get("crls").size() > 0) {
            return "feature has-crl";
        }
        return null;
    }

    private static List<X509Certificate> certs(JsonNode array) throws Exception {
        List<X509Certificate> out = new ArrayList<>();
        for (JsonNode n : array) {
            out.add(cert(n.asText()));
        }
        return out;
    }

    private static X509Certificate cert(String pem) throws Exception {
        return (X509Certificate) CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)));
    }

    static Set<String> ids() {
        return KNOWN_DIVERGENCES.keySet();
    }
}
