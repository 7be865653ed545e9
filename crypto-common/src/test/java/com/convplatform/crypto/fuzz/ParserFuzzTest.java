package com.convplatform.crypto.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.fetch.CertificateFetcher;
import com.convplatform.crypto.fetch.HostOverrides;
import com.convplatform.crypto.hook.HookSigner;
import com.convplatform.crypto.hook.HookVerifier;
import com.convplatform.crypto.json.JsonFields;
import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.crypto.sig.CryptoProviders;
import com.convplatform.crypto.sig.SignatureAlgorithm;
import com.convplatform.crypto.sig.Signatures;
import com.convplatform.crypto.testing.HttpsTestServer;
import com.convplatform.crypto.testing.TestPki;
import com.convplatform.crypto.time.TimestampWindow;
import com.convplatform.crypto.url.CertificateUrl;
import com.convplatform.crypto.url.HookCertUrlRule;
import com.convplatform.crypto.url.ManagementCertUrlRule;

/**
 * Fuzz targets for every parser in this library that reads attacker bytes. Each may refuse its input only in the
 * documented way (a {@link VerificationException}, or for {@link JsonFields} an {@link IllegalArgumentException}); any
 * other exception, an {@code Error}, a hang or an accepted input that breaks the rule's promise is a finding.
 * <p>
 * A plain {@code mvn verify} runs each target over its checked-in inputs (regression mode:
 * {@code src/test/resources/com/convplatform/crypto/fuzz/ParserFuzzTestInputs/<target>/}); {@code JAZZER_FUZZ=1}
 * fuzzes one target (crypto-common/fuzz.sh runs them all, for as long as asked). A crash found is kept as a file in
 * that folder, which makes it a regression test.
 */
class ParserFuzzTest {
    private static final String FQDN = "client.example.com";
    private static final ManagementCertUrlRule MANAGEMENT_URLS = new ManagementCertUrlRule(FQDN);
    private static final HookCertUrlRule HOOK_URLS = HookCertUrlRule.forDomains("platform.example");
    private static final CryptoProviders PROVIDERS = CryptoProviders.recommended();
    private static final KeyPair EC = KeyPairs.ecP256();
    private static final KeyPair RSA = KeyPairs.rsa();
    private static final byte[] SIGNED = "{\"fqdn\":\"client.example.com\"}".getBytes(StandardCharsets.UTF_8);

    @FuzzTest(maxDuration = "10s")
    void certificateUrls(FuzzedDataProvider data) {
        String raw = data.consumeRemainingAsString();
        try {
            CertificateUrl url = MANAGEMENT_URLS.check(raw);
            assertEquals(FQDN, url.host());
            assertTrue(url.path().startsWith(ManagementCertUrlRule.PATH_PREFIX), url.path());
            assertFalse(url.path().contains("/../") || url.path().contains("?") || url.path().contains("#"), raw);
        } catch (VerificationException refused) {
            // the documented refusal
        }
        try {
            CertificateUrl url = HOOK_URLS.check(raw);
            assertTrue(url.host().equals("platform.example") || url.host().endsWith(".platform.example"), raw);
            assertEquals(HookCertUrlRule.PATH, url.path());
        } catch (VerificationException refused) {
            // the documented refusal
        }
    }

    @FuzzTest(maxDuration = "10s")
    void pem(byte[] data) {
        try {
            assertTrue(Pem.parseCertificates(data, Pem.DEFAULT_MAX_BYTES).size() <= Pem.MAX_CERTIFICATES);
        } catch (VerificationException refused) {
            // the documented refusal
        }
    }

    /** DER certificates straight to the X.509 parser, past the PEM armour. */
    @FuzzTest(maxDuration = "10s")
    void derCertificates(byte[] der) {
        String pem = "-----BEGIN CERTIFICATE-----\n" + Base64.getMimeEncoder().encodeToString(der)
                + "\n-----END CERTIFICATE-----\n";
        try {
            Pem.parseCertificates(pem);
        } catch (VerificationException refused) {
            // the documented refusal
        }
    }

    /** Signature bytes (DER ECDSA, RSA) and their Base64 header form: never valid, never anything but a refusal. */
    @FuzzTest(maxDuration = "10s")
    void signatures(FuzzedDataProvider data) {
        boolean base64 = data.consumeBoolean();
        byte[] signature;
        try {
            signature = base64
                    ? Signatures.decodeBase64(data.consumeRemainingAsString())
                    : data.consumeRemainingAsBytes();
        } catch (VerificationException refused) {
            return;
        }
        for (var check : List.of(Map.entry(SignatureAlgorithm.SHA1_WITH_ECDSA, EC),
                Map.entry(SignatureAlgorithm.SHA1_WITH_RSA, RSA), Map.entry(SignatureAlgorithm.SHA256_WITH_RSA, RSA))) {
            try {
                assertFalse(Signatures.verify(check.getKey(), check.getValue().getPublic(), SIGNED, signature,
                        PROVIDERS), "a fuzzed signature verified");
            } catch (VerificationException refused) {
                // the documented refusal
            }
        }
    }

    @FuzzTest(maxDuration = "10s")
    void jsonFields(byte[] json) {
        try {
            JsonFields.topLevelString(json, "signature_timestamp");
        } catch (IllegalArgumentException refused) {
            // the documented refusal: not one strict JSON object, or the field is not a string
        }
    }

    /** A timestamp is accepted only in its one strict form, which formatting gives back unchanged. */
    @FuzzTest(maxDuration = "10s")
    void timestamps(FuzzedDataProvider data) {
        String raw = data.consumeRemainingAsString();
        try {
            assertEquals(raw.toUpperCase(Locale.ROOT), TimestampWindow.format(TimestampWindow.parse(raw)));
        } catch (VerificationException refused) {
            // the documented refusal
        }
    }

    /**
     * The hook verifier's three inputs (signature header, certificate URL header, raw body), against a real platform
     * certificate served on loopback: half the runs use the right URL, so the fuzzer reaches the signature and the
     * body's timestamp. Jazzer's SSRF detector allows a connection to that server only: a fuzzed URL that made the
     * verifier connect anywhere else would be a finding.
     */
    @FuzzTest(maxDuration = "10s")
    void hookVerifier(FuzzedDataProvider data) {
        BugDetectors.allowNetworkConnections((host, port) -> port == Platform.PORT);
        boolean rightUrl = data.consumeBoolean();
        boolean signed = data.consumeBoolean();
        String url = rightUrl ? Platform.URL : data.consumeString(300);
        String signature = signed ? null : data.consumeString(700);
        byte[] body = data.consumeRemainingAsBytes();
        if (signed) {
            signature = Platform.SIGNER.sign(body).signature();
        }
        try {
            Platform.VERIFIER.verify(signature, url, body);
        } catch (VerificationException refused) {
            // the documented refusal
        }
    }

    /** A platform on loopback for {@link #hookVerifier}, made once per JVM. */
    private static final class Platform {
        static final String HOST = "hooks.platform.example";
        static final String URL = "https://" + HOST + HookCertUrlRule.PATH;
        static final HookSigner SIGNER;
        static final HookVerifier VERIFIER;
        static final int PORT;

        static {
            TestPki pki = TestPki.create();
            KeyPair key = KeyPairs.rsa();
            HttpsTestServer server = HttpsTestServer.start(pki, HOST); // lives as long as the JVM
            PORT = server.port();
            server.serve(HookCertUrlRule.PATH, "application/json",
                    "{\"certificate\":\"" + Pem.toPem(pki.leaf(key, HOST).chain()).replace("\n", "\\n") + "\"}");
            SIGNER = new HookSigner(key.getPrivate(), URL, PROVIDERS);
            VERIFIER = HookVerifier.builder().platformDomains("platform.example").trustAnchors(pki.anchors())
                    .fetcher(new CertificateFetcher(pki.clientContext(), Duration.ofSeconds(2), Duration.ofSeconds(5),
                            65536, HostOverrides.parse(server.overrides(HOST))))
                    .build();
        }
    }
}
