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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
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
 * untrusted_intermediates, leaf = peer_certificate, name = expected_peer_name, time = validation_time (or the middle
 * of the leaf's validity, see {@link #validationTime}), and serverAuth required when the case asks for it. Cases
 * whose features we do not implement are skipped with the reason; cases that run and disagree with the expected
 * result must be listed in {@link #KNOWN_DIVERGENCES} with a reason, so the suite stays green and honest: an unlisted
 * disagreement fails, and so does a listed case that starts to agree. Cases fixed once are pinned to their refusal's
 * reason ({@link #REFUSED_BECAUSE}). Counts are printed and quoted in the module README.
 */
class X509LimboTest {
    /** Features of x509-limbo we do not implement, with the reason. */
    static final Map<String, String> UNSUPPORTED_FEATURES = Map.of(
            "has-crl", "revocation (CRLs) is not checked: certificates are short-lived and fetched per URL",
            "max-chain-depth", "no caller-chosen depth limit beyond our fixed 10-certificate cap",
            "has-policy-constraints", "certificate policies are not asserted",
            "pedantic-webpki-subscriber-key",
            "the signing key is judged after the chain by sig.KeyPolicy (CERT_KEY_UNSUPPORTED), not by the chain check",
            "pedantic-webpki-eku",
            "our EKU rule (README) allows a leaf without EKU and anyExtendedKeyUsage, as RFC 5280 does",
            "pedantic-serial-number", "serial-number pedantry is left to the JDK parser",
            "pedantic-public-suffix-wildcard", "no public-suffix list is shipped",
            "pedantic-rfc5280", "pedantic RFC 5280 checks are not enforced");

    private static final String KEY_IDENTIFIERS = "key identifiers are path-building hints, not authority: every"
            + " signature is verified and the path is built by name, so a missing or critical AKI/SKI changes nothing"
            + " we accept; refusing would break sound private CAs (and JDK roots such as Hongkong Post Root CA 1 and"
            + " TWCA Global Root CA have no SKI)";
    private static final String ROOT_AKI = "a configured root's own AKI is never used (the root is trusted by"
            + " configuration; its name and key end the path); the CA/B Forum's encoding rules for a root's AKI"
            + " protect nothing here";
    private static final String CN_NOT_USED = "the subject CN is never consulted (names match the SANs only), so a CN"
            + " that is not a copy of a SAN cannot make us accept a name the SANs do not carry; the CA/B Forum rule is"
            + " about how CAs fill the CN, and enforcing it would refuse private-CA and integrator certificates whose"
            + " CN is an organisation name";

    /**
     * Cases that run and disagree, each with the reason we keep the disagreement. Every one was reviewed against this
     * platform's use (a WebPKI-style certificate for a host signs requests): name constraints, EKU, key usage, basic
     * constraints, path length, validity and SAN rules agree with the suite; what is left is either a CA's encoding
     * rule that does not change what a chain proves, or the Web PKI side of a pair on which RFC 5280 differs.
     */
    static final Map<String, String> KNOWN_DIVERGENCES = Map.ofEntries(
            // we accept; the suite refuses
            Map.entry("rfc5280::aki::critical-aki", KEY_IDENTIFIERS),
            Map.entry("rfc5280::aki::intermediate-missing-aki", KEY_IDENTIFIERS),
            Map.entry("rfc5280::aki::leaf-missing-aki", KEY_IDENTIFIERS),
            Map.entry("rfc5280::ski::intermediate-missing-ski", KEY_IDENTIFIERS),
            Map.entry("rfc5280::ski::root-missing-ski", KEY_IDENTIFIERS),
            Map.entry("webpki::aki::root-with-aki-all-fields", ROOT_AKI),
            Map.entry("webpki::aki::root-with-aki-authoritycertissuer", ROOT_AKI),
            Map.entry("webpki::aki::root-with-aki-authoritycertserialnumber", ROOT_AKI),
            Map.entry("webpki::aki::root-with-aki-missing-keyidentifier", ROOT_AKI),
            Map.entry("webpki::aki::root-with-aki-ski-mismatch", ROOT_AKI),
            Map.entry("webpki::cn::case-mismatch", CN_NOT_USED),
            Map.entry("webpki::cn::ipv4-hex-mismatch", CN_NOT_USED),
            Map.entry("webpki::cn::ipv4-leading-zeros-mismatch", CN_NOT_USED),
            Map.entry("webpki::cn::ipv6-non-rfc5952-mismatch", CN_NOT_USED),
            Map.entry("webpki::cn::ipv6-uncompressed-mismatch", CN_NOT_USED),
            Map.entry("webpki::cn::ipv6-uppercase-mismatch", CN_NOT_USED),
            Map.entry("webpki::cn::not-in-san", CN_NOT_USED),
            Map.entry("webpki::cn::punycode-not-in-san", CN_NOT_USED),
            Map.entry("webpki::cn::utf8-vs-punycode-mismatch", CN_NOT_USED),
            Map.entry("webpki::malformed-aia",
                    "the authorityInfoAccess extension is never read (no AIA fetching), so its content cannot affect"
                            + " the result"),
            Map.entry("rfc5280::root-non-critical-basic-constraints",
                    "the root must say CA=true, but criticality is not required of a root: JDK roots Go Daddy Class 2,"
                            + " Starfield Class 2 and Chunghwa ePKI mark basicConstraints non-critical"),
            Map.entry("rfc5280::nc::permitted-dns-match-noncritical",
                    "conflicting pair: we take the Web PKI side (webpki::nc::permitted-dns-match-noncritical, which"
                            + " agrees); the constraints are applied, only their criticality is tolerated"),
            // we refuse; the suite accepts
            Map.entry("rfc5280::ca-as-leaf",
                    "conflicting pair: the Web PKI side (webpki::ca-as-leaf, which agrees); the signing certificate"
                            + " must be an end-entity certificate"),
            Map.entry("pathlen::validation-ignores-pathlen-in-leaf",
                    "the leaf is a CA certificate; the signing certificate must be an end-entity certificate with"
                            + " digitalSignature"),
            Map.entry("rfc5280::nc::nc-forbids-alternate-chain-ica",
                    "both paths are tried; the valid one fails in the JDK's PKIX code, which also applies an"
                            + " intermediate's DNS constraints to the subject CN of a later CA without DNS SANs"
                            + " (CN=an-intermediate); fails closed"));

    /**
     * Cases this suite once got wrong, now refused: each must be refused for the reason given (a fragment of the
     * message), not by accident.
     */
    static final Map<String, String> REFUSED_BECAUSE = Map.ofEntries(
            Map.entry("cve::cve-2025-61727", "'*.example.com' can match names in the excluded subtree"),
            Map.entry("rfc5280::nc::nc-forbids-dnsname-wildcard-san",
                    "'*.example.com' can match names in the excluded subtree"),
            Map.entry("rfc5280::nc::nc-permits-invalid-dns-san", "is not a valid host name"),
            Map.entry("rfc5280::nc::nc-permits-invalid-ip-san", "is not an address"),
            Map.entry("rfc5280::nc::not-allowed-in-ee-critical", "only a CA certificate may carry"),
            Map.entry("rfc5280::nc::not-allowed-in-ee-noncritical", "only a CA certificate may carry"),
            Map.entry("webpki::nc::intermediate-permitted-excluded-subtrees-both-empty-sequences",
                    "empty name constraints extension"),
            Map.entry("webpki::nc::intermediate-permitted-excluded-subtrees-both-null",
                    "empty name constraints extension"),
            Map.entry("rfc5280::nc::excluded-dns-match-second", "is in the excluded subtree"),
            Map.entry("rfc5280::nc::permitted-ip-mismatch", "is outside the permitted subtrees"),
            Map.entry("rfc5280::nc::invalid-dnsname-leading-period", "not a valid DNS name"),
            Map.entry("rfc5280::eku::ee-eku-empty", "lists no purpose"),
            Map.entry("rfc5280::root-missing-basic-constraints", "is not a CA certificate"),
            Map.entry("rfc5280::root-inconsistent-ca-extensions", "does not allow certificate signing"),
            Map.entry("rfc5280::unknown-critical-extension-root", "critical extension that is not understood"),
            Map.entry("webpki::forbidden-dsa-root", "key is DSA"),
            Map.entry("webpki::forbidden-weak-rsa-key-in-root", "RSA of 1024 bits"),
            Map.entry("webpki::forbidden-rsa-not-divisible-by-8-in-root", "RSA of 2052 bits"),
            Map.entry("webpki::san::san-critical-with-nonempty-subject", "Subject Alternative Names critical"));

    private static final Map<String, Integer> SKIPPED = new TreeMap<>();
    private static final int[] RUN = new int[4]; // [ran, agreed, we accept what the suite refuses, the reverse]

    @AfterAll
    static void printCounts() {
        System.out.printf("x509-limbo: ran=%d agreed=%d known-divergences=%d (we accept, suite refuses: %d; we"
                + " refuse, suite accepts: %d) skipped=%s%n", RUN[0], RUN[1], KNOWN_DIVERGENCES.size(), RUN[2], RUN[3],
                SKIPPED);
    }

    @TestFactory
    Stream<DynamicTest> serverCases() throws IOException {
        JsonNode root = new ObjectMapper().readTree(Vectors.file("x509-limbo/limbo.json").toFile());
        List<DynamicTest> tests = new ArrayList<>();
        Set<String> runs = new HashSet<>();
        int total = 0;
        for (JsonNode tc : root.get("testcases")) {
            total++;
            String id = tc.get("id").asText();
            String skip = skipReason(tc);
            if (skip != null) {
                SKIPPED.merge(skip, 1, Integer::sum);
                continue;
            }
            runs.add(id);
            tests.add(dynamicTest(id, () -> run(tc, id)));
        }
        assertEquals(root.get("testcases").size(), total);
        tests.add(dynamicTest("every pinned id is a case that runs", () -> {
            Set<String> pinned = new TreeSet<>(KNOWN_DIVERGENCES.keySet());
            pinned.addAll(REFUSED_BECAUSE.keySet());
            pinned.removeAll(runs);
            assertEquals(Set.of(), pinned, "pinned ids that are not run (misspelt, skipped or gone from the suite)");
        }));
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
        Instant at = validationTime(tc, leaf);
        ChainValidator validator = new ChainValidator(TrustAnchors.of(trusted));
        for (JsonNode eku : tc.get("extended_key_usage")) {
            if (eku.asText().equals("serverAuth")) {
                validator = validator.requiringExtendedKeyUsage(ChainValidator.SERVER_AUTH);
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
            RUN[succeeded ? 2 : 3]++;
            return;
        }
        assertEquals(expectSuccess, succeeded, id + ": expected " + tc.get("expected_result").asText()
                + " but we said " + why);
        String because = REFUSED_BECAUSE.get(id);
        if (because != null) {
            assertTrue(why.contains(because), id + ": refused, but not because of '" + because + "': " + why);
        }
        RUN[1]++;
    }

    /**
     * The case's {@code validation_time}; without one (the case means "now"), the middle of the leaf's validity, so
     * that the outcome never depends on the day the suite runs.
     */
    static Instant validationTime(JsonNode tc, X509Certificate leaf) {
        JsonNode given = tc.get("validation_time");
        if (given != null && !given.isNull()) {
            return OffsetDateTime.parse(given.asText()).toInstant();
        }
        long from = leaf.getNotBefore().toInstant().getEpochSecond();
        long to = leaf.getNotAfter().toInstant().getEpochSecond();
        return Instant.ofEpochSecond(from + (to - from) / 2);
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
