package com.convplatform.crypto.kits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import com.convplatform.crypto.FailureCode;
import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.hook.HookHeaders;
import com.convplatform.crypto.hook.HookVerifier;
import com.convplatform.crypto.management.ManagementRequestSigner;
import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.sig.CryptoProviders;
import com.convplatform.crypto.sig.SignatureAlgorithm;
import com.convplatform.crypto.sig.Signatures;
import com.convplatform.crypto.testing.TestPki;
import com.convplatform.crypto.url.CertificateUrlRule;
import com.convplatform.crypto.url.HookCertUrlRule;
import com.convplatform.crypto.url.ManagementCertUrlRule;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * Runs every shared kit vector (clients/vectors, see its README) through the reference implementation, so the
 * verdicts the Python and Node kits are tested against are the Java library's own: each hook through a
 * {@link HookVerifier} whose certificate downloads go to a local HTTPS server answering the case's {@code served}
 * bytes (TLS trusted through a separate test PKI; the hook chains are trusted through the vectors' root only), each
 * certificate URL through the two rules, each signed request through {@link Signatures} and
 * {@link ManagementRequestSigner}.
 */
class KitVectorsTest {
    /**
     * Codes no recorded hook can give: the two certificate headers and registered certificates are management
     * request matters, and CERT_FETCH_BUSY needs concurrent downloads from one host.
     */
    static final Set<FailureCode> MANAGEMENT_OR_LOAD_ONLY = Set.of(FailureCode.CERT_HEADERS,
            FailureCode.CERT_UNKNOWN, FailureCode.CERT_FETCH_BUSY);

    static TestPki tls;
    static JsonNode hooks;

    @BeforeAll
    static void load() {
        tls = TestPki.create();
        hooks = KitVectors.json("hooks.json");
    }

    // ------------------------------------------------------------------------------------------------ hooks
    @TestFactory
    Stream<DynamicTest> everyHookCaseGetsItsExpectedVerdictAndDownloadCount() {
        assertTrue(hooks.get("cases").size() >= 60, "hooks.json has too few cases");
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode c : hooks.get("cases")) {
            tests.add(dynamicTest(c.get("name").asText() + " -> " + c.get("expected").asText(), () -> runHookCase(c)));
        }
        return tests.stream();
    }

    void runHookCase(JsonNode c) throws Exception {
        try (VectorPlatform platform = VectorPlatform.forCase(tls, hooks, c)) {
            JsonNode prime = c.get("prime");
            if (!prime.isNull()) {
                platform.serve(prime.get("served"));
                platform.clock.set(Instant.parse(prime.has("now") ? prime.get("now").asText() : c.get("now").asText()));
                assertEquals("OK", outcome(platform.verifier, prime), "the prime hook must verify");
                platform.clock.set(Instant.parse(c.get("now").asText()));
            }
            platform.serve(c.get("served"));
            assertEquals(c.get("expected").asText(), outcome(platform.verifier, c), c.get("description").asText());
            assertEquals(c.get("fetches").asInt(), platform.downloads(), "downloads");
        }
    }

    /** "OK" or the failure code's name; on success, also that the URL verified is the one served. */
    static String outcome(HookVerifier verifier, JsonNode hook) {
        JsonNode headers = hook.get("headers");
        try {
            HookVerifier.Verified ok = verifier.verify(KitVectors.stringOrNull(headers.get(HookHeaders.SIGNATURE)),
                    KitVectors.stringOrNull(headers.get(HookHeaders.CERTIFICATE_URL)),
                    KitVectors.base64(hook.get("body_b64")));
            assertTrue(hook.get("served").has(ok.certificateUrl()),
                    "verified with " + ok.certificateUrl() + ", which the case does not serve");
            return "OK";
        } catch (VerificationException e) {
            assertTrue(e.getMessage().length() > 10, "a failure explains itself: " + e.getMessage());
            return e.code().name();
        }
    }

    /** The kits' byte-flip test, here too: any change to the good hook's body or signature fails. */
    @Test
    void flippingAnyByteOfTheGoodBodyOrSignatureFails() throws Exception {
        JsonNode good = hookCase("good");
        byte[] body = KitVectors.base64(good.get("body_b64"));
        String signature = good.get("headers").get(HookHeaders.SIGNATURE).asText();
        String url = good.get("headers").get(HookHeaders.CERTIFICATE_URL).asText();
        try (VectorPlatform platform = VectorPlatform.forCase(tls, hooks, good)) {
            platform.serve(good.get("served"));
            HookVerifier verifier = platform.verifier;
            assertEquals(url, verifier.verify(signature, url, body).certificateUrl());
            for (int i = 0; i < body.length; i++) {
                byte[] flipped = body.clone();
                flipped[i] ^= (byte) 0xff;
                assertEquals(FailureCode.SIGNATURE_MISMATCH, refusal(verifier, signature, url, flipped),
                        "body byte " + i);
            }
            byte[] sig = Base64.getDecoder().decode(signature);
            for (int i = 0; i < sig.length; i++) {
                byte[] flipped = sig.clone();
                flipped[i] ^= (byte) 0xff;
                String other = Base64.getEncoder().encodeToString(flipped);
                assertEquals(FailureCode.SIGNATURE_MISMATCH, refusal(verifier, other, url, body),
                        "signature byte " + i);
            }
            assertEquals(1, platform.downloads(), "a fresh certificate is not downloaded again");
        }
    }

    static FailureCode refusal(HookVerifier verifier, String signature, String url, byte[] body) {
        return assertThrows(VerificationException.class, () -> verifier.verify(signature, url, body)).code();
    }

    static JsonNode hookCase(String name) {
        for (JsonNode c : hooks.get("cases")) {
            if (c.get("name").asText().equals(name)) {
                return c;
            }
        }
        throw new IllegalStateException("hooks.json has no case '" + name + "'");
    }

    @Test
    void theHookCasesCoverEveryFailureCodeAHookCanGive() {
        Set<String> seen = new LinkedHashSet<>();
        hooks.get("cases").forEach(c -> seen.add(c.get("expected").asText()));
        for (FailureCode code : FailureCode.values()) {
            if (MANAGEMENT_OR_LOAD_ONLY.contains(code)) {
                continue;
            }
            assertTrue(seen.contains(code.name()), "no hook case expects " + code);
        }
    }

    // ------------------------------------------------------------------------------------- certificate URLs
    @TestFactory
    Stream<DynamicTest> everyCertificateUrlCaseMatchesOurRules() {
        JsonNode urls = KitVectors.json("cert-urls.json");
        List<String> hookDomains = new ArrayList<>();
        urls.get("hook").get("platform_domains").forEach(d -> hookDomains.add(d.asText()));
        List<DynamicTest> tests = new ArrayList<>();
        tests.addAll(urlTests("hook", new HookCertUrlRule(hookDomains), urls.get("hook").get("cases")));
        tests.addAll(urlTests("management", new ManagementCertUrlRule(urls.get("management").get("fqdn").asText()),
                urls.get("management").get("cases")));
        assertTrue(tests.size() >= 100, "cert-urls.json has too few cases");
        return tests.stream();
    }

    static List<DynamicTest> urlTests(String which, CertificateUrlRule rule, JsonNode cases) {
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode c : cases) {
            String url = KitVectors.stringOrNull(c.get("url"));
            String expected = c.get("expected").asText();
            String shown = url == null ? "null" : url.length() > 100 ? url.substring(0, 100) + "..." : url;
            tests.add(dynamicTest(which + " " + shown + " -> " + expected, () -> {
                String outcome;
                String normalised = null;
                try {
                    normalised = rule.check(url).toString();
                    outcome = "OK";
                } catch (VerificationException e) {
                    outcome = e.code().name();
                }
                assertEquals(expected, outcome);
                assertEquals(KitVectors.stringOrNull(c.get("normalized")), normalised);
            }));
        }
        return tests;
    }

    // ------------------------------------------------------------------------------------- signed requests
    @TestFactory
    Stream<DynamicTest> everySignedRequestVerifiesAsExpectedAndOurSignerReproducesIt() {
        JsonNode cases = KitVectors.json("signed-requests.json").get("cases");
        assertTrue(cases.size() >= 15, "signed-requests.json has too few cases");
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode c : cases) {
            tests.add(dynamicTest(c.get("name").asText() + " -> " + c.get("expected").asText(),
                    () -> runSignedRequest(c)));
        }
        return tests.stream();
    }

    static void runSignedRequest(JsonNode c) throws Exception {
        CryptoProviders providers = CryptoProviders.recommended();
        SignatureAlgorithm algorithm = algorithm(c.get("algorithm").asText());
        X509Certificate cert = KitVectors.certificates(c.get("certificate").asText()).get(0);
        PrivateKey key = Pem.parsePrivateKey(KitVectors.text(c.get("private_key").asText()));
        byte[] body = KitVectors.base64(c.get("body_b64"));
        String given = c.get("signature_b64").asText();

        assertEquals(c.get("expected").asText(), verdict(algorithm, cert, body, given, providers),
                c.get("description").asText());

        ManagementRequestSigner signer = new ManagementRequestSigner(key, providers);
        // SHA256with... cases are the Signature-256 header, the others the Signature header
        boolean sha256 = algorithm == SignatureAlgorithm.SHA256_WITH_RSA
                || algorithm == SignatureAlgorithm.SHA256_WITH_ECDSA;
        assertEquals(algorithm, sha256 ? signer.algorithm256() : signer.algorithm(),
                "the signer picks the algorithm from the key");
        if (c.get("expected").asText().equals("OK")) {
            String ours = sha256 ? signer.sign256(body) : signer.sign(body);
            if (!algorithm.isEcdsa()) {
                assertEquals(given, ours, algorithm.jcaName() + " is deterministic: the same bytes");
            } else {
                assertEquals("OK", verdict(algorithm, cert, body, ours, providers));
                assertNotEquals(given, ours, "ECDSA signatures are randomised");
            }
        } else {
            // what the case sent is not what our signer makes for that body with that key
            assertFalse((sha256 ? signer.sign256(body) : signer.sign(body)).equals(given));
        }
    }

    static String verdict(SignatureAlgorithm algorithm, X509Certificate cert, byte[] body, String signature,
            CryptoProviders providers) {
        try {
            byte[] raw = Signatures.decodeBase64(signature);
            return Signatures.verify(algorithm, cert.getPublicKey(), body, raw, providers)
                    ? "OK"
                    : FailureCode.SIGNATURE_MISMATCH.name();
        } catch (VerificationException e) {
            return e.code().name();
        }
    }

    static SignatureAlgorithm algorithm(String jcaName) {
        for (SignatureAlgorithm a : SignatureAlgorithm.values()) {
            if (a.jcaName().equals(jcaName)) {
                return a;
            }
        }
        throw new IllegalArgumentException("Unknown algorithm in signed-requests.json: " + jcaName);
    }
}
