package com.convplatform.crypto.chain;

import static com.convplatform.crypto.FailureCode.CERT_CHAIN_INVALID;
import static com.convplatform.crypto.FailureCode.CERT_EXPIRED;
import static com.convplatform.crypto.FailureCode.CERT_NAME_MISMATCH;
import static com.convplatform.crypto.FailureCode.CERT_NOT_YET_VALID;
import static com.convplatform.crypto.FailureCode.CERT_UNTRUSTED;

import java.security.GeneralSecurityException;
import java.security.InvalidAlgorithmParameterException;
import java.security.cert.CertPath;
import java.security.cert.CertPathBuilder;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertPathValidatorException.BasicReason;
import java.security.cert.CertStore;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateParsingException;
import java.security.cert.CollectionCertStoreParameters;
import java.security.cert.PKIXBuilderParameters;
import java.security.cert.PKIXCertPathBuilderResult;
import java.security.cert.PKIXCertPathValidatorResult;
import java.security.cert.PKIXParameters;
import java.security.cert.PKIXReason;
import java.security.cert.TrustAnchor;
import java.security.cert.X509CertSelector;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.List;
import java.util.Objects;

import com.convplatform.crypto.VerificationException;

/**
 * Validates a signing certificate chain at an instant: every certificate within its validity window, the required
 * DNS name in the signing certificate's SANs, the signing certificate's key usage (digitalSignature when present,
 * and an extended key usage when one is required), and a PKIX path (signatures, CA flags, path length, key usage,
 * name constraints, critical extensions) to one of the trust anchors. Revocation is not checked. The exception's
 * {@link com.convplatform.crypto.FailureCode} and message name the check that failed.
 */
public final class ChainValidator {
    /** Chains longer than this are refused before any work. */
    public static final int MAX_CHAIN_LENGTH = 10;

    private final TrustAnchors anchors;
    private final String requiredExtendedKeyUsage;

    /** A validator that requires no particular extended key usage. */
    public ChainValidator(TrustAnchors anchors) {
        this(anchors, null);
    }

    private ChainValidator(TrustAnchors anchors, String requiredExtendedKeyUsage) {
        this.anchors = Objects.requireNonNull(anchors, "anchors");
        this.requiredExtendedKeyUsage = requiredExtendedKeyUsage;
    }

    /**
     * A validator that also requires the signing certificate, when it has an extended key usage extension, to list
     * {@code oid} or anyExtendedKeyUsage.
     */
    public ChainValidator requiringExtendedKeyUsage(String oid) {
        return new ChainValidator(anchors, oid);
    }

    public TrustAnchors anchors() {
        return anchors;
    }

    /**
     * Validates a chain given in order, signing certificate first; the root may be included or left out.
     * Certificates out of order or extra ones are tolerated: a path is then built from the pool.
     */
    public ValidatedChain validate(List<X509Certificate> chain, String requiredName, Instant at)
            throws VerificationException {
        if (chain == null || chain.isEmpty()) {
            throw new VerificationException(CERT_CHAIN_INVALID, "The certificate chain is empty");
        }
        if (chain.size() > MAX_CHAIN_LENGTH) {
            throw new VerificationException(CERT_CHAIN_INVALID,
                    "The chain has " + chain.size() + " certificates; at most " + MAX_CHAIN_LENGTH + " are accepted");
        }
        return validate(chain.get(0), chain.subList(1, chain.size()), requiredName, at);
    }

    /** Validates {@code leaf}, building a path through any of {@code intermediates} (order not significant). */
    public ValidatedChain validate(X509Certificate leaf, Collection<X509Certificate> intermediates,
            String requiredName, Instant instant) throws VerificationException {
        // X.509 validity has whole seconds (RFC 5280 4.1.2.5): compare at whole seconds, Not After inclusive.
        Instant at = instant.truncatedTo(ChronoUnit.SECONDS);
        checkWindow(leaf, at, "The signing certificate");
        if (requiredName != null && !HostnameMatcher.matches(leaf, requiredName)) {
            throw new VerificationException(CERT_NAME_MISMATCH, "The signing certificate's Subject Alternative Names "
                    + describeSans(leaf) + " do not include '" + requiredName + "'");
        }
        checkLeafUsage(leaf);
        if (leaf.getBasicConstraints() >= 0) {
            throw new VerificationException(CERT_CHAIN_INVALID,
                    "The signing certificate is a CA certificate (basicConstraints CA=true); sign with an end-entity"
                            + " certificate issued by the CA");
        }
        List<X509Certificate> ordered = new ArrayList<>();
        ordered.add(leaf);
        ordered.addAll(intermediates);
        // Drop a trailing anchor: PKIX wants the path without it.
        while (ordered.size() > 1 && anchors.contains(ordered.get(ordered.size() - 1))) {
            ordered.remove(ordered.size() - 1);
        }
        if (isChained(ordered)) {
            try {
                return validateOrdered(ordered, at);
            } catch (VerificationException orderedFailure) {
                // A different path through the certificates sent may still lead to an anchor; when none does, the
                // failure of the path as sent is the one to report (it names the certificate at fault).
                try {
                    return build(leaf, intermediates, at);
                } catch (VerificationException ignored) {
                    throw orderedFailure;
                }
            }
        }
        return build(leaf, intermediates, at);
    }

    /**
     * Validates a self-signed certificate registered with the platform: its own signature, its validity window,
     * the required name in its SANs and its key usage. No trust anchor is involved.
     */
    public static ValidatedChain validateSelfSigned(X509Certificate cert, String requiredName, Instant instant)
            throws VerificationException {
        Instant at = instant.truncatedTo(ChronoUnit.SECONDS);
        if (!cert.getSubjectX500Principal().equals(cert.getIssuerX500Principal())) {
            throw new VerificationException(CERT_CHAIN_INVALID,
                    "The certificate is not self-signed: its issuer differs from its subject");
        }
        try {
            cert.verify(cert.getPublicKey());
        } catch (GeneralSecurityException e) {
            throw new VerificationException(CERT_CHAIN_INVALID,
                    "The certificate's self-signature does not verify with its own key", e);
        }
        checkWindow(cert, at, "The certificate");
        if (requiredName != null && !HostnameMatcher.matches(cert, requiredName)) {
            throw new VerificationException(CERT_NAME_MISMATCH, "The certificate's Subject Alternative Names "
                    + describeSans(cert) + " do not include '" + requiredName + "'");
        }
        checkLeafUsageStatic(cert, null);
        return ValidatedChain.of(List.of(cert));
    }

    private ValidatedChain validateOrdered(List<X509Certificate> path, Instant at) throws VerificationException {
        for (int i = 1; i < path.size(); i++) {
            checkWindow(path.get(i), at, "Certificate " + (i + 1) + " of the chain");
        }
        try {
            CertificateFactory cf = CertificateFactory.getInstance("X.509");
            CertPath certPath = cf.generateCertPath(path);
            PKIXParameters params = new PKIXParameters(anchors.anchors());
            params.setRevocationEnabled(false);
            params.setDate(Date.from(at));
            PKIXCertPathValidatorResult result = (PKIXCertPathValidatorResult) CertPathValidator.getInstance("PKIX")
                    .validate(certPath, params);
            checkAnchor(result.getTrustAnchor(), at);
            return ValidatedChain.of(path);
        } catch (CertPathValidatorException e) {
            throw translate(e, path);
        } catch (InvalidAlgorithmParameterException e) {
            throw new VerificationException(CERT_UNTRUSTED, "No trust anchors are configured", e);
        } catch (GeneralSecurityException | RuntimeException e) {
            // The JDK's PKIX code throws unchecked exceptions for some malformed extensions (e.g. an otherName
            // under name constraints): a hostile chain must still be a refusal, never a crash.
            throw new VerificationException(CERT_CHAIN_INVALID, "The chain cannot be validated: " + e.getMessage(), e);
        }
    }

    private ValidatedChain build(X509Certificate leaf, Collection<X509Certificate> pool, Instant at)
            throws VerificationException {
        try {
            X509CertSelector target = new X509CertSelector();
            target.setCertificate(leaf);
            PKIXBuilderParameters params = new PKIXBuilderParameters(anchors.anchors(), target);
            params.setRevocationEnabled(false);
            params.setDate(Date.from(at));
            params.setMaxPathLength(MAX_CHAIN_LENGTH);
            List<X509Certificate> all = new ArrayList<>(pool);
            all.add(leaf);
            params.addCertStore(CertStore.getInstance("Collection", new CollectionCertStoreParameters(all)));
            PKIXCertPathBuilderResult result = (PKIXCertPathBuilderResult) CertPathBuilder.getInstance("PKIX")
                    .build(params);
            @SuppressWarnings("unchecked")
            List<X509Certificate> path = (List<X509Certificate>) result.getCertPath().getCertificates();
            checkAnchor(result.getTrustAnchor(), at);
            return ValidatedChain.of(path);
        } catch (CertPathBuilderException e) {
            if (e.getCause() instanceof CertPathValidatorException cpve) {
                throw translate(cpve, List.of(leaf));
            }
            throw new VerificationException(CERT_UNTRUSTED,
                    "No path from the signing certificate to a trusted root could be built from the chain sent ("
                            + e.getMessage() + ")",
                    e);
        } catch (InvalidAlgorithmParameterException e) {
            throw new VerificationException(CERT_UNTRUSTED, "No trust anchors are configured", e);
        } catch (GeneralSecurityException | RuntimeException e) {
            throw new VerificationException(CERT_CHAIN_INVALID, "The chain cannot be validated: " + e.getMessage(), e);
        }
    }

    /** PKIX takes anchors on trust; an expired or not yet valid root still ends the chain's validity. */
    private static void checkAnchor(TrustAnchor anchor, Instant at) throws VerificationException {
        X509Certificate root = anchor.getTrustedCert();
        if (root != null) {
            checkWindow(root, at, "The trusted root " + root.getSubjectX500Principal().getName());
        }
    }

    private static VerificationException translate(CertPathValidatorException e, List<X509Certificate> path) {
        int index = e.getIndex();
        String which = index >= 0 && index < path.size()
                ? "certificate " + (index + 1) + " of the chain ("
                        + path.get(index).getSubjectX500Principal().getName() + ")"
                : "the chain";
        CertPathValidatorException.Reason reason = e.getReason();
        if (reason == BasicReason.EXPIRED) {
            return new VerificationException(CERT_EXPIRED, "In " + which + ": expired", e);
        }
        if (reason == BasicReason.NOT_YET_VALID) {
            return new VerificationException(CERT_NOT_YET_VALID, "In " + which + ": not valid yet", e);
        }
        if (reason == PKIXReason.NO_TRUST_ANCHOR) {
            return new VerificationException(CERT_UNTRUSTED,
                    "The chain does not end at a trusted root: the last certificate's issuer is not trusted"
                            + " (send the intermediates, signing certificate first)",
                    e);
        }
        String what;
        if (reason == PKIXReason.NOT_CA_CERT) {
            what = "an issuing certificate is not a CA (basicConstraints CA flag missing)";
        } else if (reason == PKIXReason.PATH_TOO_LONG) {
            what = "the path is longer than a CA's pathLenConstraint allows";
        } else if (reason == PKIXReason.INVALID_KEY_USAGE) {
            what = "a CA certificate's key usage does not allow certificate signing";
        } else if (reason == PKIXReason.INVALID_NAME) {
            what = "a name violates a CA's name constraints";
        } else if (reason == PKIXReason.UNRECOGNIZED_CRIT_EXT) {
            what = "a certificate has a critical extension that is not understood";
        } else if (reason == PKIXReason.INVALID_POLICY) {
            what = "the certificate policies are not valid";
        } else if (reason == PKIXReason.NAME_CHAINING) {
            what = "the certificates are not chained (an issuer does not match the next subject)";
        } else if (reason == BasicReason.INVALID_SIGNATURE) {
            what = "a certificate's signature does not verify with its issuer's key";
        } else if (reason == BasicReason.ALGORITHM_CONSTRAINED) {
            what = "a certificate uses a disallowed or weak algorithm or key";
        } else {
            what = String.valueOf(e.getMessage());
        }
        return new VerificationException(CERT_CHAIN_INVALID, "In " + which + ": " + what, e);
    }

    private static boolean isChained(List<X509Certificate> path) {
        for (int i = 0; i + 1 < path.size(); i++) {
            if (!path.get(i).getIssuerX500Principal().equals(path.get(i + 1).getSubjectX500Principal())) {
                return false;
            }
        }
        return true;
    }

    private static void checkWindow(X509Certificate cert, Instant at, String which) throws VerificationException {
        if (at.isBefore(cert.getNotBefore().toInstant())) {
            throw new VerificationException(CERT_NOT_YET_VALID,
                    which + " is valid only from " + cert.getNotBefore().toInstant() + " (now " + at + ")");
        }
        if (at.isAfter(cert.getNotAfter().toInstant())) {
            throw new VerificationException(CERT_EXPIRED,
                    which + " expired at " + cert.getNotAfter().toInstant() + " (now " + at + ")");
        }
    }

    private void checkLeafUsage(X509Certificate leaf) throws VerificationException {
        checkLeafUsageStatic(leaf, requiredExtendedKeyUsage);
    }

    private static void checkLeafUsageStatic(X509Certificate leaf, String eku) throws VerificationException {
        boolean[] ku = leaf.getKeyUsage();
        if (ku != null && !(ku.length > 0 && ku[0])) {
            throw new VerificationException(CERT_CHAIN_INVALID,
                    "The signing certificate's key usage does not include digitalSignature");
        }
        if (ku != null && ku.length > 5 && ku[5] && leaf.getBasicConstraints() < 0) {
            throw new VerificationException(CERT_CHAIN_INVALID,
                    "The signing certificate asserts keyCertSign without being a CA (RFC 5280 4.2.1.3)");
        }
        if (eku == null) {
            return;
        }
        try {
            List<String> ekus = leaf.getExtendedKeyUsage();
            if (ekus != null && !ekus.contains(eku) && !ekus.contains("2.5.29.37.0")) {
                throw new VerificationException(CERT_CHAIN_INVALID,
                        "The signing certificate's extended key usage " + ekus + " does not include " + eku);
            }
        } catch (CertificateParsingException e) {
            throw new VerificationException(CERT_CHAIN_INVALID,
                    "The signing certificate's extended key usage cannot be read", e);
        }
    }

    static String describeSans(X509Certificate cert) {
        try {
            var sans = cert.getSubjectAlternativeNames();
            if (sans == null) {
                return "(none)";
            }
            List<String> names = new ArrayList<>();
            for (List<?> san : sans) {
                if (san.get(1) instanceof String s) {
                    names.add(s);
                }
            }
            return names.toString();
        } catch (CertificateParsingException e) {
            return "(unreadable)";
        }
    }
}
