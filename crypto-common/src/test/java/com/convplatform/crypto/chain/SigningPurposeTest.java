package com.convplatform.crypto.chain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.List;
import java.util.function.UnaryOperator;

import org.bouncycastle.asn1.x509.KeyUsage;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.convplatform.crypto.FailureCode;
import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.crypto.testing.TestCertificates;
import com.convplatform.crypto.testing.TestPki;

/**
 * What the signing certificate must allow (README, "Signing certificate purpose"): key usage digitalSignature when
 * it has a key usage; serverAuth, clientAuth or anyExtendedKeyUsage when it has an extended key usage; no extended
 * key usage at all is fine. Also the SAN criticality rule and the same purpose rule for registered self-signed
 * certificates.
 */
class SigningPurposeTest {
    static final String HOST = "client.example.com";
    static TestPki pki;
    static KeyPair key;
    static ChainValidator validator;

    @BeforeAll
    static void pki() {
        pki = TestPki.create();
        key = KeyPairs.ecP256();
        validator = new ChainValidator(pki.anchors());
    }

    static X509Certificate leaf(UnaryOperator<TestCertificates> shape) {
        return shape.apply(TestCertificates.forKey(key.getPublic()).subject("CN=" + HOST).dns(HOST))
                .issuer(pki.intermediate, pki.intermediateKey.getPrivate()).build();
    }

    static ValidatedChain validate(X509Certificate leaf) throws VerificationException {
        return validator.validate(List.of(leaf, pki.intermediate), HOST, Instant.now());
    }

    static VerificationException refused(X509Certificate leaf) {
        VerificationException e = assertThrows(VerificationException.class, () -> validate(leaf));
        assertEquals(FailureCode.CERT_CHAIN_INVALID, e.code(), e::getMessage);
        return e;
    }

    @Test
    void aLeafWithoutExtendedKeyUsageServesAnyPurpose() throws Exception {
        validate(leaf(c -> c));
        validate(leaf(TestCertificates::noKeyUsage));
    }

    @ParameterizedTest
    @ValueSource(strings = {TestCertificates.SERVER_AUTH, TestCertificates.CLIENT_AUTH,
            TestCertificates.ANY_EXTENDED_KEY_USAGE})
    void serverAuthClientAuthOrAnyExtendedKeyUsageIsAccepted(String purpose) throws Exception {
        validate(leaf(c -> c.extendedKeyUsage(purpose)));
        // among other purposes too
        validate(leaf(c -> c.extendedKeyUsage(TestCertificates.CODE_SIGNING, purpose)));
    }

    @Test
    void aCertificateForOtherPurposesIsRefused() {
        VerificationException e = refused(leaf(c -> c.extendedKeyUsage(TestCertificates.CODE_SIGNING)));
        assertEquals("The signing certificate's extended key usage [codeSigning] allows none of [serverAuth,"
                + " clientAuth, anyExtendedKeyUsage]; use a certificate issued for TLS server or client"
                + " authentication", e.getMessage());
        VerificationException two = refused(leaf(c -> c.extendedKeyUsage(TestCertificates.EMAIL_PROTECTION,
                TestCertificates.TIME_STAMPING, "1.3.6.1.4.1.55738.1")));
        assertTrue(two.getMessage().startsWith("The signing certificate's extended key usage [emailProtection,"
                + " timeStamping, 1.3.6.1.4.1.55738.1] allows none of"), two.getMessage());
    }

    @Test
    void anEmptyExtendedKeyUsageIsRefused() {
        assertEquals("The signing certificate's extended key usage extension lists no purpose (RFC 5280 4.2.1.12"
                + " requires at least one)", refused(leaf(c -> c.extendedKeyUsage())).getMessage());
    }

    @Test
    void aKeyUsageWithoutDigitalSignatureIsRefused() {
        assertEquals("The signing certificate's key usage does not include digitalSignature",
                refused(leaf(c -> c.keyUsage(KeyUsage.keyEncipherment))).getMessage());
        assertTrue(refused(leaf(c -> c.keyUsage(KeyUsage.digitalSignature | KeyUsage.keyCertSign))).getMessage()
                .contains("keyCertSign without being a CA"));
    }

    @Test
    void requiringOnePurposeNarrowsTheRule() throws Exception {
        ChainValidator serverOnly = validator.requiringExtendedKeyUsage(ChainValidator.SERVER_AUTH);
        X509Certificate client = leaf(c -> c.extendedKeyUsage(TestCertificates.CLIENT_AUTH));
        validate(client);
        VerificationException e = assertThrows(VerificationException.class,
                () -> serverOnly.validate(List.of(client, pki.intermediate), HOST, Instant.now()));
        assertTrue(e.getMessage().contains("allows none of [serverAuth, anyExtendedKeyUsage]"), e.getMessage());
        serverOnly.validate(List.of(leaf(c -> c.extendedKeyUsage(TestCertificates.ANY_EXTENDED_KEY_USAGE)),
                pki.intermediate), HOST, Instant.now());
    }

    @Test
    void theTestPkisLeavesAreAccepted() throws Exception {
        // TestPki's and the services' leaves carry serverAuth and clientAuth
        TestPki.Leaf l = pki.leaf(key, HOST);
        assertEquals(l.chain(), validator.validate(l.chain(), HOST, Instant.now()).certificates());
    }

    @Test
    void criticalSubjectAlternativeNamesNeedAnEmptySubject() throws Exception {
        VerificationException e = refused(leaf(TestCertificates::criticalSans));
        assertEquals("The signing certificate marks its Subject Alternative Names critical although its subject is"
                + " not empty (CA/B Forum Baseline Requirements 7.1.2.7.12)", e.getMessage());
        X509Certificate emptySubject = TestCertificates.forKey(key.getPublic()).subject("").dns(HOST).criticalSans()
                .issuer(pki.intermediate, pki.intermediateKey.getPrivate()).build();
        validate(emptySubject);
    }

    @Test
    void aRegisteredSelfSignedCertificateFollowsTheSamePurposeRule() throws Exception {
        KeyPair own = KeyPairs.ecP256();
        UnaryOperator<TestCertificates> base = c -> c.subject("CN=" + HOST).dns(HOST);
        ChainValidator.validateSelfSigned(base.apply(TestCertificates.forKey(own.getPublic()))
                .selfSigned(own.getPrivate()), HOST, Instant.now());
        ChainValidator.validateSelfSigned(base.apply(TestCertificates.forKey(own.getPublic()))
                .extendedKeyUsage(TestCertificates.CLIENT_AUTH).selfSigned(own.getPrivate()), HOST, Instant.now());
        X509Certificate codeSigning = base.apply(TestCertificates.forKey(own.getPublic()))
                .extendedKeyUsage(TestCertificates.CODE_SIGNING).selfSigned(own.getPrivate());
        VerificationException e = assertThrows(VerificationException.class,
                () -> ChainValidator.validateSelfSigned(codeSigning, HOST, Instant.now()));
        assertEquals(FailureCode.CERT_CHAIN_INVALID, e.code());
        assertTrue(e.getMessage().contains("[codeSigning] allows none of"), e.getMessage());
        X509Certificate empty = base.apply(TestCertificates.forKey(own.getPublic())).extendedKeyUsage()
                .selfSigned(own.getPrivate());
        assertThrows(VerificationException.class,
                () -> ChainValidator.validateSelfSigned(empty, HOST, Instant.now()));
    }
}
