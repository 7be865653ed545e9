package com.convplatform.crypto.management;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import com.convplatform.crypto.FailureCode;
import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.chain.TrustAnchors;
import com.convplatform.crypto.fetch.CertificateFetcher;
import com.convplatform.crypto.pki.CertificateBuilder;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.crypto.sig.CryptoProviders;
import com.convplatform.crypto.sig.SignatureAlgorithm;
import com.convplatform.crypto.sig.Signatures;
import com.convplatform.crypto.time.TimestampWindow;

/**
 * The {@code Signature-256} extension of spec 5.1: SHA256withRSA / SHA256withECDSA over the same bytes, beside or
 * instead of {@code Signature}; every signature header sent must verify. Registered self-signed certificates, so no
 * download is involved.
 */
class Signature256Test {
    static final String FQDN = "client.example.com";
    static final Instant NOW = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);

    record Client(KeyPair keys, X509Certificate cert, ManagementRequestSigner signer) {
        static Client of(KeyPair keys) {
            return new Client(keys, CertificateBuilder.selfSigned(keys, FQDN, NOW.plus(Duration.ofDays(30)), FQDN),
                    new ManagementRequestSigner(keys.getPrivate()));
        }
    }

    static final Client RSA = Client.of(KeyPairs.rsa());
    static final Client EC = Client.of(KeyPairs.ecP256());

    private final ManagementRequestVerifier verifier = ManagementRequestVerifier.builder()
            .trustAnchors(TrustAnchors.jdkDefaults()).fetcher(CertificateFetcher.withDefaults())
            .clock(Clock.fixed(NOW, ZoneOffset.UTC)).build();

    private static byte[] body() {
        return ("{\"client_id\":\"c1\",\"fqdn\":\"" + FQDN + "\",\"timestamp\":\"" + TimestampWindow.format(NOW)
                + "\"}").getBytes(StandardCharsets.UTF_8);
    }

    private ManagementRequestVerifier.Verified verify(Client c, byte[] body, String signature, String signature256)
            throws VerificationException {
        return verifier.verify(new ManagementRequestVerifier.Request(body, FQDN, TimestampWindow.format(NOW),
                signature, null, "u-1", signature256),
                uuid -> uuid.equals("u-1")
                        ? Optional.of(c.cert())
                        : Optional.empty());
    }

    private FailureCode refusal(Client c, byte[] body, String signature, String signature256) {
        return assertThrows(VerificationException.class, () -> verify(c, body, signature, signature256)).code();
    }

    @Test
    void theSignerMakesSha256SignaturesOfTheKeysFamily() throws Exception {
        byte[] b = body();
        assertEquals(SignatureAlgorithm.SHA256_WITH_RSA, RSA.signer().algorithm256());
        assertEquals(SignatureAlgorithm.SHA256_WITH_ECDSA, EC.signer().algorithm256());
        for (Client c : List.of(RSA, EC)) {
            byte[] raw = Signatures.decodeBase64(c.signer().sign256(b));
            assertTrue(Signatures.verify(c.signer().algorithm256(), c.keys().getPublic(), b, raw,
                    CryptoProviders.jdk()));
            assertFalse(Signatures.verify(c.signer().algorithm(), c.keys().getPublic(), b, raw,
                    CryptoProviders.jdk()), "a SHA-256 signature is not a SHA-1 signature");
        }
        // SHA256withRSA (PKCS#1 v1.5) is deterministic; the JDK's own SHA256withRSA makes the same bytes.
        assertEquals(RSA.signer().sign256(b), Signatures.sign(SignatureAlgorithm.SHA256_WITH_RSA,
                RSA.keys().getPrivate(), b, CryptoProviders.jdk()));
    }

    @Test
    void headersCarryBothSignaturesUnlessSha1Only() {
        byte[] b = body();
        Map<String, String> both = RSA.signer().headers(b, false);
        assertEquals(List.of("Signature", "Signature-256"), List.copyOf(both.keySet()));
        assertEquals(RSA.signer().sign(b), both.get("Signature"));
        assertEquals(RSA.signer().sign256(b), both.get("Signature-256"));
        assertEquals(List.of("Signature"), List.copyOf(RSA.signer().headers(b, true).keySet()));
    }

    @Test
    void bothHeadersValidVerifyAndBothAlgorithmsAreReported() throws Exception {
        byte[] b = body();
        for (Client c : List.of(RSA, EC)) {
            var v = verify(c, b, c.signer().sign(b), c.signer().sign256(b));
            assertEquals(List.of(c.signer().algorithm(), c.signer().algorithm256()), v.algorithms());
            assertEquals(c.signer().algorithm256(), v.algorithm(), "the strongest algorithm that verified");
            assertTrue(v.sha256());
        }
    }

    @Test
    void signature256AloneIsEnoughAndSignatureAloneStillIs() throws Exception {
        byte[] b = body();
        for (Client c : List.of(RSA, EC)) {
            var only256 = verify(c, b, null, c.signer().sign256(b));
            assertEquals(List.of(c.signer().algorithm256()), only256.algorithms());
            assertTrue(only256.sha256());
            var only1 = verify(c, b, c.signer().sign(b), null);
            assertEquals(List.of(c.signer().algorithm()), only1.algorithms());
            assertFalse(only1.sha256());
        }
    }

    @Test
    void whenBothAreSentAWrongOneIsRefusedWhicheverItIs() throws Exception {
        byte[] b = body();
        byte[] other = "{\"other\":1}".getBytes(StandardCharsets.UTF_8);
        for (Client c : List.of(RSA, EC)) {
            var badSha256 = assertThrows(VerificationException.class,
                    () -> verify(c, b, c.signer().sign(b), c.signer().sign256(other)));
            assertEquals(FailureCode.SIGNATURE_MISMATCH, badSha256.code());
            assertTrue(badSha256.getMessage().contains("Signature-256"), badSha256.getMessage());
            var badSha1 = assertThrows(VerificationException.class,
                    () -> verify(c, b, c.signer().sign(other), c.signer().sign256(b)));
            assertEquals(FailureCode.SIGNATURE_MISMATCH, badSha1.code());
            assertTrue(badSha1.getMessage().startsWith("The Signature header"), badSha1.getMessage());
            // a SHA-1 signature sent as Signature-256 (and the other way round) does not verify
            assertEquals(FailureCode.SIGNATURE_MISMATCH, refusal(c, b, null, c.signer().sign(b)));
            assertEquals(FailureCode.SIGNATURE_MISMATCH, refusal(c, b, c.signer().sign256(b), null));
        }
    }

    @Test
    void aMalformedSignature256IsRefusedEvenBesideAGoodSignature() {
        byte[] b = body();
        String good = RSA.signer().sign(b);
        String good256 = RSA.signer().sign256(b);
        for (String bad : List.of("not base64!", good256.substring(0, good256.length() - 2), "",
                good256.replace("=", ""), EC.signer().sign256(b))) {
            var e = assertThrows(VerificationException.class, () -> verify(RSA, b, good, bad));
            assertEquals(FailureCode.SIGNATURE_MALFORMED, e.code(), bad);
        }
        var e = assertThrows(VerificationException.class, () -> verify(RSA, b, good, "%%%%"));
        assertTrue(e.getMessage().contains("Signature-256"), e.getMessage());
        // an RSA signature where the key is EC is not DER: malformed, whichever header carries it
        assertEquals(FailureCode.SIGNATURE_MALFORMED, refusal(EC, b, EC.signer().sign(b), good256));
    }

    @Test
    void noSignatureHeaderAtAllIsMalformedAndSaysWhatToSend() {
        var e = assertThrows(VerificationException.class, () -> verify(RSA, body(), null, null));
        assertEquals(FailureCode.SIGNATURE_MALFORMED, e.code());
        assertTrue(e.getMessage().contains("Signature-256") && e.getMessage().contains("Signature ("),
                e.getMessage());
    }

    @Test
    void theSignatureIsCheckedBeforeTheTimestampForBothHeaders() throws Exception {
        byte[] b = body();
        String stale = TimestampWindow.format(NOW.minusSeconds(151));
        var e = assertThrows(VerificationException.class, () -> verifier.verify(
                new ManagementRequestVerifier.Request(b, FQDN, stale, null, null, "u-1", RSA.signer().sign256(b)),
                uuid -> Optional.of(RSA.cert())));
        assertEquals(FailureCode.TIMESTAMP_OUT_OF_WINDOW, e.code(), "a good Signature-256 reaches step 4");
        assertNotEquals(RSA.signer().sign256(b), RSA.signer().sign(b));
    }
}
