package com.convplatform.crypto.chain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
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

/**
 * The rules for the trust anchor that ends a path (a CA, allowed to sign certificates, no unknown critical
 * extension, a strong key, within its validity), strong keys for every CA of the path, and the path search: the
 * chain as sent first, another path when it fails, bounded work on hostile pools.
 */
class TrustedRootAndPathTest {
    static final String HOST = "client.example.com";
    static KeyPair leafKey;
    static KeyPair caKey;

    @BeforeAll
    static void keys() {
        leafKey = KeyPairs.ecP256();
        caKey = KeyPairs.ecP256();
    }

    /** Validates root -> leaf, with the root shaped by {@code shape} and signed by {@code rootKey}. */
    static ValidatedChain underRoot(KeyPair rootKey, UnaryOperator<TestCertificates> shape)
            throws VerificationException {
        X509Certificate root = shape.apply(TestCertificates.forKey(rootKey.getPublic()).subject("CN=Rule Root"))
                .selfSigned(rootKey.getPrivate());
        X509Certificate leaf = TestCertificates.forKey(leafKey.getPublic()).subject("CN=" + HOST).dns(HOST)
                .issuer(root, rootKey.getPrivate()).build();
        return new ChainValidator(TrustAnchors.of(List.of(root))).validate(List.of(leaf), HOST, Instant.now());
    }

    static VerificationException refusedUnderRoot(KeyPair rootKey, UnaryOperator<TestCertificates> shape) {
        VerificationException e = assertThrows(VerificationException.class, () -> underRoot(rootKey, shape));
        assertEquals(FailureCode.CERT_CHAIN_INVALID, e.code(), e::getMessage);
        return e;
    }

    @Test
    void aProperRootIsAccepted() throws Exception {
        underRoot(KeyPairs.ecP256(), r -> r.ca(-1));
        underRoot(KeyPairs.ecP256(), r -> r.ca(-1).noKeyUsage());
    }

    @Test
    void aCachedChainExpiresWithItsRootAndLastsToItsLastWholeSecond() throws Exception {
        Instant now = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        KeyPair rootKey = KeyPairs.ecP256();
        X509Certificate root = TestCertificates.forKey(rootKey.getPublic()).subject("CN=Rule Root").ca(-1)
                .validity(now.minus(Duration.ofDays(1)), now.plusSeconds(10)).selfSigned(rootKey.getPrivate());
        X509Certificate leaf = TestCertificates.forKey(leafKey.getPublic()).subject("CN=" + HOST).dns(HOST)
                .validity(now.minus(Duration.ofDays(1)), now.plus(Duration.ofDays(30)))
                .issuer(root, rootKey.getPrivate()).build();
        ValidatedChain v = new ChainValidator(TrustAnchors.of(List.of(root))).validate(List.of(leaf), HOST, now);
        v.checkValidAt(now.plusSeconds(10).plusMillis(999)); // Not After is inclusive, at whole seconds
        VerificationException e = assertThrows(VerificationException.class,
                () -> v.checkValidAt(now.plusSeconds(11)));
        assertEquals(FailureCode.CERT_EXPIRED, e.code(), e::getMessage);
    }

    @Test
    void aRootMustBeACaAllowedToSignCertificates() {
        assertEquals("The trusted root CN=Rule Root is not a CA certificate (no basicConstraints with CA=true)",
                refusedUnderRoot(KeyPairs.ecP256(), TestCertificates::caWithoutBasicConstraints).getMessage());
        assertEquals("The trusted root CN=Rule Root has a key usage that does not allow certificate signing"
                + " (keyCertSign)",
                refusedUnderRoot(KeyPairs.ecP256(),
                        r -> r.ca(-1).keyUsage(KeyUsage.digitalSignature | KeyUsage.cRLSign)).getMessage());
    }

    @Test
    void everyRootTheJdkShipsMeetsTheRootRules() throws Exception {
        List<X509Certificate> roots = TrustAnchors.jdkDefaults().certificates();
        assertTrue(roots.size() > 50, "the JVM's roots: " + roots.size());
        for (X509Certificate root : roots) {
            Instant from = root.getNotBefore().toInstant();
            Instant inside = from.plus(Duration.between(from, root.getNotAfter().toInstant()).dividedBy(2));
            PathRules.checkAnchor(root, inside); // throws with the root's name if one does not
        }
    }

    @Test
    void aRootWithACriticalExtensionWeDoNotKnowIsRefused() {
        assertEquals("The trusted root CN=Rule Root has a critical extension that is not understood"
                + " (1.3.6.1.4.1.55738.666.1)",
                refusedUnderRoot(KeyPairs.ecP256(),
                        r -> r.ca(-1).unknownCriticalExtension("1.3.6.1.4.1.55738.666.1")).getMessage());
    }

    @Test
    void anExpiredRootEndsTheChainsValidity() {
        Instant now = Instant.now();
        VerificationException e = assertThrows(VerificationException.class, () -> underRoot(KeyPairs.ecP256(),
                r -> r.ca(-1).validity(now.minus(Duration.ofDays(10)), now.minusSeconds(5))));
        assertEquals(FailureCode.CERT_EXPIRED, e.code());
        assertTrue(e.getMessage().startsWith("The trusted root CN=Rule Root expired at "), e.getMessage());
    }

    @Test
    void aWeakRootKeyIsRefused() throws Exception {
        KeyPair rsa1024 = KeyPairs.rsa(1024);
        assertEquals("The trusted root CN=Rule Root's key is RSA of 1024 bits; CA keys must be RSA of at least 2048"
                + " bits (a multiple of 8) or EC on P-256, P-384 or P-521",
                refusedUnderRoot(rsa1024, r -> r.ca(-1))
                        .getMessage());
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2052);
        assertTrue(refusedUnderRoot(g.generateKeyPair(), r -> r.ca(-1)).getMessage()
                .contains("key is RSA of 2052 bits"));
        underRoot(KeyPairs.rsa(2048), r -> r.ca(-1));
    }

    @ParameterizedTest
    @ValueSource(strings = {"secp256r1", "secp384r1", "secp521r1"})
    void theNistCurvesAreAcceptedForCaKeys(String curve) throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec(curve));
        KeyPair k = g.generateKeyPair();
        assertNull(PathRules.caKeyProblem(k.getPublic()));
        underRoot(k, r -> r.ca(-1));
    }

    @Test
    void aWeakIntermediateKeyIsRefused() {
        KeyPair rootKey = KeyPairs.ecP256();
        X509Certificate root = TestCertificates.forKey(rootKey.getPublic()).subject("CN=Strong Root").ca(-1)
                .selfSigned(rootKey.getPrivate());
        KeyPair weak = KeyPairs.rsa(1024);
        X509Certificate ca = TestCertificates.forKey(weak.getPublic()).subject("CN=Weak CA").ca(0)
                .issuer(root, rootKey.getPrivate()).build();
        X509Certificate leaf = TestCertificates.forKey(leafKey.getPublic()).subject("CN=" + HOST).dns(HOST)
                .issuer(ca, weak.getPrivate()).build();
        VerificationException e = assertThrows(VerificationException.class,
                () -> new ChainValidator(TrustAnchors.of(List.of(root))).validate(List.of(leaf, ca), HOST,
                        Instant.now()));
        assertEquals(FailureCode.CERT_CHAIN_INVALID, e.code());
        assertTrue(e.getMessage().startsWith("In certificate 2 of the chain (CN=Weak CA): the CA key is RSA of 1024"
                + " bits"), e.getMessage());
    }

    @Test
    void anExpiredIntermediateIsRoutedAroundWhenAnotherPathExists() throws Exception {
        // the same CA (name and key) certified twice: an expired certificate first, a current one second
        KeyPair rootKey = KeyPairs.ecP256();
        X509Certificate root = TestCertificates.forKey(rootKey.getPublic()).subject("CN=Path Root").ca(-1)
                .selfSigned(rootKey.getPrivate());
        Instant now = Instant.now();
        X509Certificate expired = TestCertificates.forKey(caKey.getPublic()).subject("CN=Path CA").ca(0)
                .validity(now.minus(Duration.ofDays(30)), now.minus(Duration.ofDays(1)))
                .issuer(root, rootKey.getPrivate()).build();
        X509Certificate current = TestCertificates.forKey(caKey.getPublic()).subject("CN=Path CA").ca(0)
                .issuer(root, rootKey.getPrivate()).build();
        X509Certificate leaf = TestCertificates.forKey(leafKey.getPublic()).subject("CN=" + HOST).dns(HOST)
                .validity(now.minus(Duration.ofDays(2)), now.plus(Duration.ofDays(2)))
                .issuer(current, caKey.getPrivate()).build();
        ChainValidator v = new ChainValidator(TrustAnchors.of(List.of(root)));
        assertEquals(List.of(leaf, current),
                v.validate(List.of(leaf, expired, current), HOST, now).certificates());
        // the root sent along is dropped; the order of the extra certificates does not matter
        assertEquals(List.of(leaf, current),
                v.validate(List.of(leaf, root, current, expired), HOST, now).certificates());
        VerificationException e = assertThrows(VerificationException.class,
                () -> v.validate(List.of(leaf, expired), HOST, now));
        assertEquals(FailureCode.CERT_EXPIRED, e.code());
        assertTrue(e.getMessage().startsWith("Certificate 2 of the chain expired at"), e.getMessage());
    }

    @Test
    void aHostilePoolIsSearchedWithinBounds() {
        // 60 CAs of the same name, none leading to the trusted root: the search gives up quickly
        KeyPair rootKey = KeyPairs.ecP256();
        X509Certificate root = TestCertificates.forKey(rootKey.getPublic()).subject("CN=Pool Root").ca(-1)
                .selfSigned(rootKey.getPrivate());
        KeyPair decoyKey = KeyPairs.ecP256();
        X509Certificate seed = TestCertificates.forKey(decoyKey.getPublic()).subject("CN=Decoy").ca(-1)
                .selfSigned(decoyKey.getPrivate());
        List<X509Certificate> pool = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            pool.add(TestCertificates.forKey(decoyKey.getPublic()).subject("CN=Decoy").ca(-1)
                    .issuer(seed, decoyKey.getPrivate()).build());
        }
        X509Certificate leaf = TestCertificates.forKey(leafKey.getPublic()).subject("CN=" + HOST).dns(HOST)
                .issuer(seed, decoyKey.getPrivate()).build();
        long start = System.nanoTime();
        VerificationException e = assertThrows(VerificationException.class,
                () -> new ChainValidator(TrustAnchors.of(List.of(root))).validate(leaf, pool, HOST, Instant.now()));
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertEquals(FailureCode.CERT_UNTRUSTED, e.code(), e::getMessage);
        assertEquals("No path to a trusted root was found within " + ChainValidator.MAX_SEARCH_STEPS
                + " steps through the certificates sent", e.getMessage());
        assertTrue(ms < 5_000, "took " + ms + " ms");
    }
}
