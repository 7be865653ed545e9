package com.convplatform.crypto.chain;

import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.cert.CertPathValidatorException;
import java.security.cert.Certificate;
import java.security.cert.PKIXCertPathChecker;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

import com.convplatform.crypto.FailureCode;

/**
 * Our rules for a whole path, run inside the JDK's PKIX validator after its own checks of each certificate, for
 * every candidate path of {@link ChainValidator}'s search (so a path that breaks them makes the search try another):
 * <ul>
 * <li>the trust anchor that ends the path is within its validity window, is a CA (basicConstraints CA=true), may sign
 * certificates when it has a key usage, has no critical extension we do not know, and has a strong key;</li>
 * <li>every intermediate has a strong key (RSA of at least 2048 bits and a multiple of 8, or EC on P-256, P-384 or
 * P-521: the CA/B Forum's key rules, which also hold for every root the JDK ships);</li>
 * <li>name constraints, the anchor's included, with wildcard SANs, by {@link NameConstraintRules}. Self-issued
 * intermediates are not checked against them (RFC 5280 6.1.3 b), the signing certificate always is.</li>
 * </ul>
 * The JDK hands each validation a clone, and {@link #init} starts every path afresh.
 */
final class PathRules extends PKIXCertPathChecker {
    /** Extensions a trust anchor may mark critical: the ones RFC 5280 defines for CA certificates. */
    private static final Set<String> KNOWN_ANCHOR_EXTENSIONS = Set.of("2.5.29.14", "2.5.29.15", "2.5.29.17",
            "2.5.29.18", "2.5.29.19", "2.5.29.30", "2.5.29.32", "2.5.29.33", "2.5.29.35", "2.5.29.36", "2.5.29.37",
            "2.5.29.54");

    /** The group orders of P-256, P-384 and P-521: a curve is recognised by its order. */
    private static final Set<java.math.BigInteger> NIST_CURVE_ORDERS = Set.of(order("secp256r1"), order("secp384r1"),
            order("secp521r1"));

    private final List<X509Certificate> anchors;
    private final X509Certificate target;
    private final Instant at;
    private NameConstraintRules names;
    private boolean first;

    PathRules(List<X509Certificate> anchors, X509Certificate target, Instant at) {
        this.anchors = anchors;
        this.target = target;
        this.at = at;
    }

    @Override
    public void init(boolean forward) throws CertPathValidatorException {
        if (forward) {
            throw new CertPathValidatorException("forward checking is not supported");
        }
        names = new NameConstraintRules();
        first = true;
    }

    @Override
    public boolean isForwardCheckingSupported() {
        return false;
    }

    @Override
    public Set<String> getSupportedExtensions() {
        return null;
    }

    @Override
    public void check(Certificate c, Collection<String> unresolvedCritExts) throws CertPathValidatorException {
        X509Certificate cert = (X509Certificate) c;
        if (first) {
            first = false;
            X509Certificate anchor = anchorOf(cert);
            if (anchor != null) {
                checkAnchor(anchor, at);
                try {
                    names.add(anchor, "The trusted root " + ChainValidator.nameOf(anchor));
                } catch (RuleViolation v) {
                    throw new RuleViolation(v.code(), v.getMessage(), true); // about the root, not the certificate
                }
            }
        }
        boolean signing = cert.equals(target);
        if (!signing) {
            String problem = caKeyProblem(cert.getPublicKey());
            if (problem != null) {
                throw new RuleViolation(FailureCode.CERT_CHAIN_INVALID, "the CA key is " + problem);
            }
        }
        if (signing || !cert.getSubjectX500Principal().equals(cert.getIssuerX500Principal())) {
            names.check(cert);
        }
        if (!signing) {
            names.add(cert, "the certificate");
        }
    }

    /** The configured anchor that issued {@code cert}: same name, and the key that verifies it when several match. */
    private X509Certificate anchorOf(X509Certificate cert) {
        List<X509Certificate> named = new ArrayList<>();
        for (X509Certificate a : anchors) {
            if (a.getSubjectX500Principal().equals(cert.getIssuerX500Principal())) {
                named.add(a);
            }
        }
        if (named.size() <= 1) {
            return named.isEmpty() ? null : named.get(0);
        }
        for (X509Certificate a : named) {
            try {
                cert.verify(a.getPublicKey());
                return a;
            } catch (GeneralSecurityException | RuntimeException e) {
                // another anchor of the same name
            }
        }
        return named.get(0);
    }

    /** The rules for the trust anchor that ends a path. */
    static void checkAnchor(X509Certificate root, Instant at) throws RuleViolation {
        String name = "The trusted root " + ChainValidator.nameOf(root);
        if (at.isBefore(root.getNotBefore().toInstant())) {
            throw new RuleViolation(FailureCode.CERT_NOT_YET_VALID,
                    name + " is valid only from " + root.getNotBefore().toInstant() + " (now " + at + ")", true);
        }
        if (at.isAfter(root.getNotAfter().toInstant())) {
            throw new RuleViolation(FailureCode.CERT_EXPIRED,
                    name + " expired at " + root.getNotAfter().toInstant() + " (now " + at + ")", true);
        }
        if (root.getBasicConstraints() < 0) {
            throw new RuleViolation(FailureCode.CERT_CHAIN_INVALID,
                    name + " is not a CA certificate (no basicConstraints with CA=true)", true);
        }
        boolean[] ku = root.getKeyUsage();
        if (ku != null && !(ku.length > 5 && ku[5])) {
            throw new RuleViolation(FailureCode.CERT_CHAIN_INVALID,
                    name + " has a key usage that does not allow certificate signing (keyCertSign)", true);
        }
        Set<String> critical = root.getCriticalExtensionOIDs();
        if (critical != null) {
            for (String oid : critical) {
                if (!KNOWN_ANCHOR_EXTENSIONS.contains(oid)) {
                    throw new RuleViolation(FailureCode.CERT_CHAIN_INVALID,
                            name + " has a critical extension that is not understood (" + oid + ")", true);
                }
            }
        }
        String problem = caKeyProblem(root.getPublicKey());
        if (problem != null) {
            throw new RuleViolation(FailureCode.CERT_CHAIN_INVALID, name + "'s key is " + problem, true);
        }
    }

    private static java.math.BigInteger order(String curve) {
        try {
            java.security.AlgorithmParameters p = java.security.AlgorithmParameters.getInstance("EC");
            p.init(new java.security.spec.ECGenParameterSpec(curve));
            return p.getParameterSpec(java.security.spec.ECParameterSpec.class).getOrder();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("The JDK does not know the curve " + curve, e);
        }
    }

    /** Null when a CA key is acceptable, else what is wrong with it. */
    static String caKeyProblem(PublicKey key) {
        String allowed = "; CA keys must be RSA of at least 2048 bits (a multiple of 8) or EC on P-256, P-384 or P-521";
        if (key instanceof RSAPublicKey rsa) {
            int bits = rsa.getModulus().bitLength();
            return bits >= 2048 && bits % 8 == 0 ? null : "RSA of " + bits + " bits" + allowed;
        }
        if (key instanceof ECPublicKey ec) {
            java.math.BigInteger order = ec.getParams().getOrder();
            return NIST_CURVE_ORDERS.contains(order)
                    ? null
                    : "EC on a " + order.bitLength() + "-bit curve other than P-256, P-384 or P-521" + allowed;
        }
        return key.getAlgorithm() + allowed;
    }
}
