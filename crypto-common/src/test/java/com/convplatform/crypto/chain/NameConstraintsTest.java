package com.convplatform.crypto.chain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import com.convplatform.crypto.FailureCode;
import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.crypto.testing.TestCertificates;

/**
 * Name constraints with real chains (root, constrained intermediate, leaf): wildcard SANs (CVE-2025-61727), the
 * root's own constraints, names that cannot be checked, IP constraints, the refusals RFC 5280 asks for, the bound on
 * work, and a second path tried when the first breaks a constraint.
 */
class NameConstraintsTest {
    static KeyPair rootKey;
    static X509Certificate root;
    static KeyPair caKey;
    static KeyPair leafKey;
    static ChainValidator validator;

    @BeforeAll
    static void pki() {
        rootKey = KeyPairs.ecP256();
        root = TestCertificates.forKey(rootKey.getPublic()).subject("CN=NC Test Root").ca(-1)
                .selfSigned(rootKey.getPrivate());
        caKey = KeyPairs.ecP256();
        leafKey = KeyPairs.ecP256();
        validator = new ChainValidator(TrustAnchors.of(List.of(root)));
    }

    /** An intermediate under the root, shaped by {@code constraints}. */
    static X509Certificate intermediate(UnaryOperator<TestCertificates> constraints) {
        return constraints.apply(TestCertificates.forKey(caKey.getPublic()).subject("CN=NC Test Issuing CA").ca(0))
                .issuer(root, rootKey.getPrivate()).build();
    }

    static X509Certificate leaf(X509Certificate issuer, UnaryOperator<TestCertificates> names) {
        return names.apply(TestCertificates.forKey(leafKey.getPublic()).subject("CN=leaf")
                .extendedKeyUsage(TestCertificates.SERVER_AUTH)).issuer(issuer, caKey.getPrivate()).build();
    }

    static ValidatedChain validate(X509Certificate leaf, X509Certificate issuer, String name)
            throws VerificationException {
        return validator.validate(List.of(leaf, issuer), name, Instant.now());
    }

    static VerificationException refused(X509Certificate leaf, X509Certificate issuer, String name) {
        VerificationException e = assertThrows(VerificationException.class, () -> validate(leaf, issuer, name));
        assertEquals(FailureCode.CERT_CHAIN_INVALID, e.code(), e::getMessage);
        return e;
    }

    @Test
    void aWildcardIsRefusedUnderAnExcludedNameItCouldMatch() throws Exception {
        X509Certificate ca = intermediate(c -> c.excludeDns("bar.example.com"));
        X509Certificate wildcard = leaf(ca, l -> l.dns("*.example.com"));
        // the name asked for is not the excluded one: the wildcard could still stand for it
        VerificationException e = refused(wildcard, ca, "foo.example.com");
        assertEquals("In certificate 1 of the chain (CN=leaf): the DNS name '*.example.com' can match names in the"
                + " excluded subtree 'bar.example.com'", e.getMessage());
        refused(wildcard, ca, "bar.example.com");
        // the exact name outside the excluded one is fine
        validate(leaf(ca, l -> l.dns("foo.example.com")), ca, "foo.example.com");
    }

    @Test
    void aWildcardIsRefusedUnderAnExcludedParentAndAllowedBesideADeeperExclusion() throws Exception {
        X509Certificate parent = intermediate(c -> c.excludeDns("example.com"));
        refused(leaf(parent, l -> l.dns("*.example.com")), parent, "foo.example.com");
        // *.example.com matches one label only: it can never stand for a name below x.bar.example.com
        X509Certificate deeper = intermediate(c -> c.excludeDns("x.bar.example.com"));
        validate(leaf(deeper, l -> l.dns("*.example.com")), deeper, "foo.example.com");
        // nor for anything in another domain
        X509Certificate elsewhere = intermediate(c -> c.excludeDns("bar.example.org"));
        validate(leaf(elsewhere, l -> l.dns("*.example.com")), elsewhere, "foo.example.com");
    }

    @Test
    void aWildcardIsPermittedOnlyWhenEveryNameItCanMatchIs() throws Exception {
        X509Certificate domain = intermediate(c -> c.permitDns("example.com"));
        validate(leaf(domain, l -> l.dns("*.example.com")), domain, "foo.example.com");
        X509Certificate top = intermediate(c -> c.permitDns("com"));
        validate(leaf(top, l -> l.dns("*.example.com")), top, "foo.example.com");
        X509Certificate one = intermediate(c -> c.permitDns("foo.example.com"));
        VerificationException e = refused(leaf(one, l -> l.dns("*.example.com")), one, "foo.example.com");
        assertTrue(e.getMessage().endsWith("the DNS name '*.example.com' can match names outside the permitted"
                + " subtrees [foo.example.com]"), e.getMessage());
        validate(leaf(one, l -> l.dns("foo.example.com")), one, "foo.example.com");
    }

    @Test
    void plainNamesAreCheckedAtLabelBoundariesWhateverTheirCaseOrTrailingDot() throws Exception {
        X509Certificate ca = intermediate(c -> c.permitDns("example.com").excludeDns("Secret.Example.com"));
        validate(leaf(ca, l -> l.dns("example.com")), ca, "example.com");
        validate(leaf(ca, l -> l.dns("api.example.com")), ca, "api.example.com");
        refused(leaf(ca, l -> l.dns("notexample.com")), ca, "notexample.com");
        refused(leaf(ca, l -> l.dns("example.org")), ca, "example.org");
        // every SAN is checked, not only the one asked for
        refused(leaf(ca, l -> l.dns("api.example.com", "example.org")), ca, "api.example.com");
        refused(leaf(ca, l -> l.dns("SECRET.example.COM")), ca, "secret.example.com");
        refused(leaf(ca, l -> l.dns("x.secret.example.com")), ca, "x.secret.example.com");
        // the host name matcher ignores a trailing dot, so the constraints must too
        refused(leaf(ca, l -> l.dns("secret.example.com.")), ca, "secret.example.com");
    }

    @Test
    void aSanThatIsNotAHostNameCannotBeCheckedAndIsRefusedUnderDnsConstraints() throws Exception {
        X509Certificate ca = intermediate(c -> c.permitDns("example.com"));
        for (String bad : List.of(".example.com", "bad_name.example.com", "f*.example.com", "*.*.example.com",
                "a..example.com")) {
            VerificationException e = refused(leaf(ca, l -> l.dns("ok.example.com", bad)), ca, "ok.example.com");
            assertTrue(e.getMessage().contains("is not a valid host name"), e.getMessage());
        }
        // without DNS constraints such a SAN simply never matches
        X509Certificate ipOnly = intermediate(c -> c.permitIp("10.0.0.0/8"));
        validate(leaf(ipOnly, l -> l.dns("ok.example.com", "bad_name.example.com")), ipOnly, "ok.example.com");
    }

    @Test
    void ipAddressesAreCheckedAgainstIpSubtreesOnly() throws Exception {
        X509Certificate ca = intermediate(c -> c.permitIp("10.0.0.0/8").excludeIp("10.9.0.0/16"));
        validate(leaf(ca, l -> l.dns("api.example.com").ip("10.1.2.3")), ca, "api.example.com");
        validate(leaf(ca, l -> l.dns("api.example.com").ip("10.1.2.3")), ca, "10.1.2.3");
        VerificationException outside = refused(leaf(ca, l -> l.dns("api.example.com").ip("192.168.1.1")), ca,
                "api.example.com");
        assertTrue(outside.getMessage().endsWith("the IP address 192.168.1.1 is outside the permitted subtrees"),
                outside.getMessage());
        refused(leaf(ca, l -> l.dns("api.example.com").ip("10.9.8.7")), ca, "api.example.com");
        // an IPv6 address is outside IPv4 subtrees
        refused(leaf(ca, l -> l.dns("api.example.com").ip("::1")), ca, "api.example.com");
    }

    @Test
    void theRootsOwnConstraintsApply() throws Exception {
        KeyPair constrainedRootKey = KeyPairs.ecP256();
        X509Certificate constrainedRoot = TestCertificates.forKey(constrainedRootKey.getPublic())
                .subject("CN=Constrained Root").ca(-1).permitDns("example.com").excludeDns("bar.example.com")
                .selfSigned(constrainedRootKey.getPrivate());
        ChainValidator v = new ChainValidator(TrustAnchors.of(List.of(constrainedRoot)));
        X509Certificate ca = TestCertificates.forKey(caKey.getPublic()).subject("CN=Under Constrained Root").ca(0)
                .issuer(constrainedRoot, constrainedRootKey.getPrivate()).build();
        X509Certificate inside = leaf(ca, l -> l.dns("api.example.com"));
        assertEquals(inside, v.validate(List.of(inside, ca), "api.example.com", Instant.now()).leaf());
        VerificationException outside = assertThrows(VerificationException.class,
                () -> v.validate(List.of(leaf(ca, l -> l.dns("api.example.org")), ca), "api.example.org",
                        Instant.now()));
        assertEquals(FailureCode.CERT_CHAIN_INVALID, outside.code(), outside::getMessage);
        assertTrue(outside.getMessage().endsWith("is outside the permitted subtrees [example.com]"),
                outside.getMessage());
        VerificationException wildcard = assertThrows(VerificationException.class,
                () -> v.validate(List.of(leaf(ca, l -> l.dns("*.example.com")), ca), "foo.example.com",
                        Instant.now()));
        assertTrue(wildcard.getMessage().endsWith("can match names in the excluded subtree 'bar.example.com'"),
                wildcard.getMessage());
    }

    @Test
    void malformedOrEmptyConstraintsAndConstraintsInALeafAreRefused() throws Exception {
        X509Certificate empty = intermediate(TestCertificates::emptyNameConstraints);
        VerificationException e = refused(leaf(empty, l -> l.dns("api.example.com")), empty, "api.example.com");
        assertTrue(e.getMessage().contains("(CN=NC Test Issuing CA): the certificate has an empty name constraints"
                + " extension"), e.getMessage());
        X509Certificate leadingDot = intermediate(c -> c.permitDns(".example.com"));
        assertTrue(refused(leaf(leadingDot, l -> l.dns("api.example.com")), leadingDot, "api.example.com")
                .getMessage().endsWith("has a name constraint that is not a valid DNS name ('.example.com')"));
        X509Certificate plain = intermediate(c -> c);
        X509Certificate constrainedLeaf = leaf(plain, l -> l.dns("api.example.com").permitDns("example.com"));
        assertEquals("The signing certificate has a name constraints extension, which only a CA certificate may"
                + " carry (RFC 5280 4.2.1.10)", refused(constrainedLeaf, plain, "api.example.com").getMessage());
    }

    @Test
    void aConstrainedNameTypeWeCannotEvaluateRefusesOnlyCertificatesThatCarrySuchAName() throws Exception {
        X509Certificate ca = intermediate(c -> c.excludeOtherName("1.3.6.1.4.1.55738.666.1"));
        validate(leaf(ca, l -> l.dns("api.example.com")), ca, "api.example.com");
        refused(leaf(ca, l -> l.dns("api.example.com").otherName("1.3.6.1.4.1.55738.666.1", "x")), ca,
                "api.example.com");
    }

    @Test
    void anotherPathIsTriedWhenTheFirstBreaksAConstraint() throws Exception {
        // the same issuing CA (name and key) certified twice by the root: once constrained, once not
        X509Certificate constrained = intermediate(c -> c.excludeDns("api.example.com"));
        X509Certificate unconstrained = intermediate(c -> c);
        X509Certificate leaf = leaf(constrained, l -> l.dns("api.example.com"));
        ValidatedChain chain = validator.validate(List.of(leaf, constrained, unconstrained), "api.example.com",
                Instant.now());
        assertEquals(List.of(leaf, unconstrained), chain.certificates());
        // with only the constrained path, its refusal is the one reported
        VerificationException e = refused(leaf, constrained, "api.example.com");
        assertTrue(e.getMessage().startsWith("In certificate 1 of the chain (CN=leaf): "), e.getMessage());
    }

    @Test
    void tooManyNamesTimesConstraintsIsRefusedBeforeTheWork() throws Exception {
        String[] excluded = new String[600];
        for (int i = 0; i < excluded.length; i++) {
            excluded[i] = "excluded" + i + ".example.org";
        }
        String[] names = new String[450];
        names[0] = "api.example.com";
        for (int i = 1; i < names.length; i++) {
            names[i] = "n" + i + ".example.com";
        }
        X509Certificate ca = intermediate(c -> c.excludeDns(excluded));
        VerificationException e = refused(leaf(ca, l -> l.dns(names)), ca, "api.example.com");
        assertTrue(e.getMessage().endsWith("too many names and name constraints to check (over "
                + NameConstraintRules.MAX_COMPARISONS + " comparisons)"), e.getMessage());
        // a tenth of the names is fine
        validate(leaf(ca, l -> l.dns(java.util.Arrays.copyOf(names, 45))), ca, "api.example.com");
    }

    @ParameterizedTest(name = "{0} within {1}: {2}")
    @CsvSource({"example.com, example.com, true", "api.example.com, example.com, true",
            "a.b.example.com, example.com, true", "notexample.com, example.com, false",
            "example.com, api.example.com, false", "com, example.com, false"})
    void withinIsAtLabelBoundaries(String name, String constraint, boolean expected) {
        assertEquals(expected, NameConstraintRules.within(name, constraint));
    }

    @ParameterizedTest(name = "*.{0} may match within {1}: {2}")
    @CsvSource({"example.com, example.com, true", "example.com, com, true", "example.com, bar.example.com, true",
            "example.com, x.bar.example.com, false", "example.com, barexample.com, false",
            "example.com, example.org, false", "sub.example.com, example.com, true",
            "example.com, other.sub.example.com, false"})
    void wildcardsMayMatchOneLabelOverTheirBase(String base, String excluded, boolean expected) {
        assertEquals(expected, NameConstraintRules.wildcardMayMatchWithin(base, excluded));
    }

    @Test
    void selfIssuedIntermediatesAreExemptButTheSigningCertificateNeverIs() throws Exception {
        // root (permits example.com) -> CA -> self-issued CA rollover (SAN outside) -> leaf
        KeyPair constrainedRootKey = KeyPairs.ecP256();
        X509Certificate constrainedRoot = TestCertificates.forKey(constrainedRootKey.getPublic())
                .subject("CN=Rollover Root").ca(-1).permitDns("example.com")
                .selfSigned(constrainedRootKey.getPrivate());
        KeyPair oldKey = KeyPairs.ecP256();
        KeyPair newKey = KeyPairs.ecP256();
        X509Certificate oldCa = TestCertificates.forKey(oldKey.getPublic()).subject("CN=Rollover CA").ca(-1)
                .issuer(constrainedRoot, constrainedRootKey.getPrivate()).build();
        X509Certificate rollover = TestCertificates.forKey(newKey.getPublic()).subject("CN=Rollover CA").ca(-1)
                .dns("outside.example.org").issuer(oldCa, oldKey.getPrivate()).build();
        X509Certificate leaf = TestCertificates.forKey(leafKey.getPublic()).subject("CN=leaf").dns("api.example.com")
                .issuer(rollover, newKey.getPrivate()).build();
        ChainValidator v = new ChainValidator(TrustAnchors.of(List.of(constrainedRoot)));
        List<X509Certificate> sent = new ArrayList<>(List.of(leaf, rollover, oldCa));
        assertEquals(sent, v.validate(sent, "api.example.com", Instant.now()).certificates());
    }
}
