package com.convplatform.crypto.chain;

import static com.convplatform.crypto.FailureCode.CERT_CHAIN_INVALID;
import static com.convplatform.crypto.FailureCode.CERT_EXPIRED;
import static com.convplatform.crypto.FailureCode.CERT_NAME_MISMATCH;
import static com.convplatform.crypto.FailureCode.CERT_NOT_YET_VALID;
import static com.convplatform.crypto.FailureCode.CERT_UNTRUSTED;

import java.security.GeneralSecurityException;
import java.security.InvalidAlgorithmParameterException;
import java.security.cert.CertPath;
import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertPathValidatorException.BasicReason;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateParsingException;
import java.security.cert.PKIXCertPathValidatorResult;
import java.security.cert.PKIXParameters;
import java.security.cert.PKIXReason;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.ASN1Sequence;

import com.convplatform.crypto.VerificationException;

/**
 * Validates a signing certificate chain at an instant: every certificate within its validity window, the required
 * DNS name in the signing certificate's SANs, the signing certificate's purpose ({@link #SIGNING_PURPOSES}: key usage
 * digitalSignature when present, an extended key usage for TLS server or client authentication when present), and a
 * PKIX path (signatures, CA flags, path length, key usage, name constraints with wildcard SANs and the root's own,
 * critical extensions, CA key strength) to one of the trust anchors. Revocation is not checked. The exception's
 * {@link com.convplatform.crypto.FailureCode} and message name the check that failed.
 */
public final class ChainValidator {
    /** Chains longer than this are refused before any work. */
    public static final int MAX_CHAIN_LENGTH = 10;

    /** Extended key usage id-kp-serverAuth. */
    public static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
    /** Extended key usage id-kp-clientAuth. */
    public static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
    /** anyExtendedKeyUsage. */
    public static final String ANY_EXTENDED_KEY_USAGE = "2.5.29.37.0";
    /**
     * The extended key usages of which a signing certificate with an extended key usage extension must list one. The
     * certificate signs requests as its subject's host (the FQDN, or the platform's hook host): the purposes of a
     * certificate for a host are TLS server and client authentication; anyExtendedKeyUsage allows every purpose. A
     * certificate without the extension may be used for any purpose (RFC 5280 4.2.1.12).
     */
    public static final Set<String> SIGNING_PURPOSES = Set.of(SERVER_AUTH, CLIENT_AUTH, ANY_EXTENDED_KEY_USAGE);

    private static final String EXTENDED_KEY_USAGE_OID = "2.5.29.37";
    private static final String SUBJECT_ALT_NAME_OID = "2.5.29.17";
    private static final Map<String, String> PURPOSE_NAMES = Map.of(SERVER_AUTH, "serverAuth", CLIENT_AUTH,
            "clientAuth", "1.3.6.1.5.5.7.3.3", "codeSigning", "1.3.6.1.5.5.7.3.4", "emailProtection",
            "1.3.6.1.5.5.7.3.8", "timeStamping", "1.3.6.1.5.5.7.3.9", "OCSPSigning", ANY_EXTENDED_KEY_USAGE,
            "anyExtendedKeyUsage");

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
     * A validator that narrows {@link #SIGNING_PURPOSES}: the signing certificate, when it has an extended key usage
     * extension, must list {@code oid} or anyExtendedKeyUsage.
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
        Set<String> critical = leaf.getCriticalExtensionOIDs();
        if (critical != null && critical.contains(SUBJECT_ALT_NAME_OID)
                && !leaf.getSubjectX500Principal().getName().isEmpty()) {
            throw new VerificationException(CERT_CHAIN_INVALID,
                    "The signing certificate marks its Subject Alternative Names critical although its subject is not"
                            + " empty (CA/B Forum Baseline Requirements 7.1.2.7.12)");
        }
        return new PathSearch(leaf, intermediates, at).run();
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

    /** Most candidate paths validated for one chain; each costs a signature check per certificate. */
    static final int MAX_PATH_ATTEMPTS = 8;
    /** Most certificates tried as the next issuer while searching, over the whole search. */
    static final int MAX_SEARCH_STEPS = 100;

    /**
     * Depth-first search for a path from the signing certificate through the certificates sent to a trust anchor,
     * in the order sent (so a chain sent in order is the first candidate) and shortest first (an anchor that issued
     * the current certificate is tried before any further intermediate). Each complete candidate is validated in
     * full ({@link #validateOrdered}); a refusal moves on to the next candidate, so a valid path is found even when
     * another one through the same certificates breaks a rule. The first refusal is reported when no candidate is
     * valid: it names the certificate at fault. Bounded by {@link #MAX_PATH_ATTEMPTS} and {@link #MAX_SEARCH_STEPS}
     * against hostile pools.
     */
    private final class PathSearch {
        private final List<X509Certificate> pool = new ArrayList<>();
        private final Instant at;
        private final List<X509Certificate> path = new ArrayList<>();
        private int attempts;
        private int steps;
        private VerificationException firstFailure;

        PathSearch(X509Certificate leaf, Collection<X509Certificate> intermediates, Instant at) {
            this.at = at;
            path.add(leaf);
            for (X509Certificate c : intermediates) {
                if (!anchors.contains(c) && !c.equals(leaf)) {
                    pool.add(c); // an anchor sent along ends the path as the anchor, never as an intermediate
                }
            }
        }

        ValidatedChain run() throws VerificationException {
            ValidatedChain found = extend();
            if (found != null) {
                return found;
            }
            if (firstFailure != null) {
                throw firstFailure;
            }
            if (attempts == 0 && steps > MAX_SEARCH_STEPS) {
                throw new VerificationException(CERT_UNTRUSTED, "No path to a trusted root was found within "
                        + MAX_SEARCH_STEPS + " steps through the certificates sent");
            }
            throw new VerificationException(CERT_UNTRUSTED, "The chain does not end at a trusted root: the last"
                    + " certificate's issuer is not trusted (send the intermediates, signing certificate first)");
        }

        private ValidatedChain extend() {
            X509Certificate current = path.get(path.size() - 1);
            if (attempts < MAX_PATH_ATTEMPTS && issuedByAnAnchor(current)) {
                attempts++;
                try {
                    return validateOrdered(List.copyOf(path), at);
                } catch (VerificationException e) {
                    if (firstFailure == null) {
                        firstFailure = e;
                    }
                }
            }
            if (path.size() >= MAX_CHAIN_LENGTH) {
                return null;
            }
            // key identifiers that agree first: they only order the search, the signatures decide
            for (boolean agreeing : new boolean[]{true, false}) {
                for (X509Certificate next : pool) {
                    if (attempts >= MAX_PATH_ATTEMPTS || steps > MAX_SEARCH_STEPS) {
                        return null;
                    }
                    if (!next.getSubjectX500Principal().equals(current.getIssuerX500Principal())
                            || keyIdentifiersAgree(next, current) != agreeing || path.contains(next)) {
                        continue;
                    }
                    steps++;
                    path.add(next);
                    ValidatedChain found = extend();
                    path.remove(path.size() - 1);
                    if (found != null) {
                        return found;
                    }
                }
            }
            return null;
        }

        private boolean issuedByAnAnchor(X509Certificate cert) {
            for (X509Certificate a : anchors.certificates()) {
                if (a.getSubjectX500Principal().equals(cert.getIssuerX500Principal())) {
                    return true;
                }
            }
            return false;
        }
    }

    /** False when both carry key identifiers and the certificate's authority key id is not the issuer's key id. */
    static boolean keyIdentifiersAgree(X509Certificate issuer, X509Certificate cert) {
        byte[] aki = keyIdentifier(cert.getExtensionValue("2.5.29.35"), true);
        byte[] ski = keyIdentifier(issuer.getExtensionValue("2.5.29.14"), false);
        return aki == null || ski == null || java.util.Arrays.equals(aki, ski);
    }

    /** The key identifier of an authority (or subject) key identifier extension, or null. */
    private static byte[] keyIdentifier(byte[] extension, boolean authority) {
        if (extension == null) {
            return null;
        }
        try {
            byte[] octets = ASN1OctetString.getInstance(extension).getOctets();
            if (authority) {
                return org.bouncycastle.asn1.x509.AuthorityKeyIdentifier.getInstance(octets).getKeyIdentifier();
            }
            return ASN1OctetString.getInstance(octets).getOctets();
        } catch (RuntimeException e) {
            return null; // unreadable: decided by the signature
        }
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
            params.addCertPathChecker(new PathRules(anchors.certificates(), path.get(0), at));
            PKIXCertPathValidatorResult result = (PKIXCertPathValidatorResult) CertPathValidator.getInstance("PKIX")
                    .validate(certPath, params);
            return ValidatedChain.of(path, result.getTrustAnchor().getTrustedCert());
        } catch (CertPathValidatorException e) {
            if (e.getReason() == PKIXReason.INVALID_NAME && ruleViolation(e) == null) {
                // The JDK's own name-constraint check came first and says only that; ours says which name and why.
                RuleViolation detail = namesAt(path, at, e.getIndex());
                if (detail != null) {
                    throw new VerificationException(detail.code(),
                            "In " + which(e, path) + ": " + detail.getMessage(), e);
                }
            }
            throw translate(e, path);
        } catch (InvalidAlgorithmParameterException e) {
            throw new VerificationException(CERT_UNTRUSTED, "No trust anchors are configured", e);
        } catch (GeneralSecurityException | RuntimeException e) {
            // The JDK's PKIX code throws unchecked exceptions for some malformed extensions (e.g. an otherName
            // under name constraints): a hostile chain must still be a refusal, never a crash.
            throw new VerificationException(CERT_CHAIN_INVALID, "The chain cannot be validated: " + e.getMessage(), e);
        }
    }

    /** Our rules' refusal of the certificate at {@code index} of {@code path}, if they refuse that one. */
    private RuleViolation namesAt(List<X509Certificate> path, Instant at, int index) {
        PathRules rules = new PathRules(anchors.certificates(), path.get(0), at);
        try {
            rules.init(false);
            for (int i = path.size() - 1; i >= 0; i--) {
                try {
                    rules.check(path.get(i), Set.of());
                } catch (RuleViolation v) {
                    return i == index && !v.complete() ? v : null;
                }
            }
        } catch (CertPathValidatorException | RuntimeException e) {
            return null;
        }
        return null;
    }

    /** "certificate N of the chain (subject)" for the certificate a PKIX failure is about. */
    private static String which(CertPathValidatorException e, List<X509Certificate> path) {
        int index = e.getIndex();
        return index >= 0 && index < path.size()
                ? "certificate " + (index + 1) + " of the chain (" + nameOf(path.get(index)) + ")"
                : "the chain";
    }

    private static VerificationException translate(CertPathValidatorException e, List<X509Certificate> path) {
        String which = which(e, path);
        RuleViolation rule = ruleViolation(e);
        if (rule != null) {
            return new VerificationException(rule.code(),
                    rule.complete() ? rule.getMessage() : "In " + which + ": " + rule.getMessage(), e);
        }
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

    /** A certificate's subject for messages, cut short: a hostile subject can be kilobytes long. */
    static String nameOf(X509Certificate cert) {
        String name = cert.getSubjectX500Principal().getName();
        return name.length() <= 200 ? name : name.substring(0, 200) + "...";
    }

    /** Our own rule's refusal, as thrown or as wrapped by the JDK's validator. */
    private static RuleViolation ruleViolation(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof RuleViolation r) {
                return r;
            }
        }
        return null;
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
        if (leaf.getExtensionValue(NameConstraintRules.NAME_CONSTRAINTS_OID) != null) {
            throw new VerificationException(CERT_CHAIN_INVALID, "The signing certificate has a name constraints"
                    + " extension, which only a CA certificate may carry (RFC 5280 4.2.1.10)");
        }
        List<String> purposes = extendedKeyUsage(leaf);
        if (purposes == null) {
            return; // no extension: any purpose (RFC 5280 4.2.1.12)
        }
        if (purposes.isEmpty()) {
            throw new VerificationException(CERT_CHAIN_INVALID, "The signing certificate's extended key usage"
                    + " extension lists no purpose (RFC 5280 4.2.1.12 requires at least one)");
        }
        Set<String> allowed = eku == null ? SIGNING_PURPOSES : Set.of(eku, ANY_EXTENDED_KEY_USAGE);
        for (String p : purposes) {
            if (allowed.contains(p)) {
                return;
            }
        }
        throw new VerificationException(CERT_CHAIN_INVALID, "The signing certificate's extended key usage "
                + purposeNames(purposes) + " allows none of " + purposeNames(allowed.stream().sorted().toList())
                + "; use a certificate issued for TLS server or client authentication");
    }

    /** The extended key usage purposes, in order; null without the extension; empty when it lists none. */
    private static List<String> extendedKeyUsage(X509Certificate leaf) throws VerificationException {
        byte[] ext = leaf.getExtensionValue(EXTENDED_KEY_USAGE_OID);
        if (ext == null) {
            return null;
        }
        try {
            ASN1Sequence seq = ASN1Sequence.getInstance(ASN1OctetString.getInstance(ext).getOctets());
            List<String> out = new ArrayList<>();
            for (int i = 0; i < seq.size(); i++) {
                out.add(ASN1ObjectIdentifier.getInstance(seq.getObjectAt(i)).getId());
            }
            return out;
        } catch (RuntimeException e) {
            throw new VerificationException(CERT_CHAIN_INVALID,
                    "The signing certificate's extended key usage cannot be read", e);
        }
    }

    private static String purposeNames(List<String> oids) {
        return oids.stream().map(o -> PURPOSE_NAMES.getOrDefault(o, o)).toList().toString();
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
