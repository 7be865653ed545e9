package com.convplatform.crypto.chain;

import java.math.BigInteger;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.ASN1String;
import org.bouncycastle.asn1.DERIA5String;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.x500.AttributeTypeAndValue;
import org.bouncycastle.asn1.x500.RDN;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.GeneralSubtree;
import org.bouncycastle.asn1.x509.NameConstraintValidatorException;
import org.bouncycastle.asn1.x509.NameConstraints;
import org.bouncycastle.asn1.x509.PKIXNameConstraintValidator;

import com.convplatform.crypto.FailureCode;

/**
 * RFC 5280 name constraints (4.2.1.10, 6.1.3 b/c, 6.1.4 g) over one path, the trust anchor's own constraints
 * included. The JDK's PKIX code cannot take a constrained anchor at all and does not know wildcard SANs, so every
 * path is checked here as well.
 *
 * <p>
 * DNS names and IP addresses are handled here, by these rules:
 * <ul>
 * <li>a DNS constraint {@code example.com} covers {@code example.com} and every name below it; a constraint that is
 * not a plain host name (a leading dot, a wildcard, an empty string) makes the extension malformed;</li>
 * <li>a wildcard SAN {@code *.example.com} is within a permitted subtree only if every name it can match is, and
 * violates an excluded subtree if any name it can match falls in it (so {@code *.example.com} violates an excluded
 * {@code bar.example.com}; CVE-2025-61727);</li>
 * <li>a SAN that is not a valid DNS name or IP address cannot be placed inside or outside a subtree, so it is refused
 * as soon as any constraint of its type applies;</li>
 * <li>a name must lie within the permitted subtrees of every CA that has permitted subtrees of its type, and outside
 * every excluded subtree.</li>
 * </ul>
 * Directory names, e-mail addresses and URIs are delegated to BouncyCastle's validator. Constraints on other name
 * types (otherName, x400Address, ediPartyName, registeredID) cannot be evaluated: a certificate that carries a name of
 * such a constrained type is refused, per RFC 5280 ("process the constraint or reject the certificate").
 */
final class NameConstraintRules {
    /** Upper bound on name-versus-constraint comparisons for one path (as Go's crypto/x509), against quadratic DoS. */
    static final int MAX_COMPARISONS = 250_000;

    static final String NAME_CONSTRAINTS_OID = "2.5.29.30";

    private static final int OTHER_NAME = GeneralName.otherName;
    private static final int RFC822 = GeneralName.rfc822Name;
    private static final int DNS = GeneralName.dNSName;
    private static final int X400 = GeneralName.x400Address;
    private static final int DIRECTORY = GeneralName.directoryName;
    private static final int EDI_PARTY = GeneralName.ediPartyName;
    private static final int URI = GeneralName.uniformResourceIdentifier;
    private static final int IP = GeneralName.iPAddress;
    private static final int REGISTERED_ID = GeneralName.registeredID;

    /** Per constraining CA: its permitted DNS subtrees (lower case). */
    private final List<List<String>> permittedDns = new ArrayList<>();
    private final List<String> excludedDns = new ArrayList<>();
    /** Per constraining CA: its permitted IP subtrees (address followed by mask). */
    private final List<List<byte[]>> permittedIp = new ArrayList<>();
    private final List<byte[]> excludedIp = new ArrayList<>();
    /** Directory names, e-mail addresses and URIs. */
    private final PKIXNameConstraintValidator others = new PKIXNameConstraintValidator();
    private final Set<Integer> constrainedUnsupportedTypes = new HashSet<>();
    private int constraintCount;
    private int comparisons;

    /** The name constraints extension of {@code cert}, parsed, or null when it has none. */
    static NameConstraints parse(X509Certificate cert) throws RuleViolation {
        byte[] ext = cert.getExtensionValue(NAME_CONSTRAINTS_OID);
        if (ext == null) {
            return null;
        }
        try {
            return NameConstraints.getInstance(ASN1OctetString.getInstance(ext).getOctets());
        } catch (RuntimeException e) {
            throw new RuleViolation(FailureCode.CERT_CHAIN_INVALID, "the name constraints extension is malformed");
        }
    }

    /**
     * Adds the constraints of a CA certificate of the path (the trust anchor first, then each intermediate from the
     * root down); {@code which} names it in messages.
     */
    void add(X509Certificate ca, String which) throws RuleViolation {
        NameConstraints nc = parse(ca);
        if (nc == null) {
            return;
        }
        GeneralSubtree[] permitted = nc.getPermittedSubtrees();
        GeneralSubtree[] excluded = nc.getExcludedSubtrees();
        if ((permitted == null || permitted.length == 0) && (excluded == null || excluded.length == 0)) {
            throw new RuleViolation(FailureCode.CERT_CHAIN_INVALID, which
                    + " has an empty name constraints extension (RFC 5280 4.2.1.10 requires permitted or excluded"
                    + " subtrees)");
        }
        List<String> dns = new ArrayList<>();
        List<byte[]> ips = new ArrayList<>();
        List<GeneralSubtree> otherPermitted = new ArrayList<>();
        for (GeneralSubtree s : permitted == null ? new GeneralSubtree[0] : permitted) {
            int type = checkSubtree(s, which);
            if (type == DNS) {
                dns.add(dnsConstraint(s.getBase(), which));
            } else if (type == IP) {
                ips.add(ipConstraint(s.getBase(), which));
            } else if (type == DIRECTORY || type == RFC822 || type == URI) {
                otherPermitted.add(s);
            } else {
                constrainedUnsupportedTypes.add(type);
            }
        }
        for (GeneralSubtree s : excluded == null ? new GeneralSubtree[0] : excluded) {
            int type = checkSubtree(s, which);
            if (type == DNS) {
                excludedDns.add(dnsConstraint(s.getBase(), which));
            } else if (type == IP) {
                excludedIp.add(ipConstraint(s.getBase(), which));
            } else if (type == DIRECTORY || type == RFC822 || type == URI) {
                delegate(() -> others.addExcludedSubtree(s), which);
            } else {
                constrainedUnsupportedTypes.add(type);
            }
        }
        if (!dns.isEmpty()) {
            permittedDns.add(dns);
        }
        if (!ips.isEmpty()) {
            permittedIp.add(ips);
        }
        if (!otherPermitted.isEmpty()) {
            delegate(() -> others.intersectPermittedSubtree(otherPermitted.toArray(new GeneralSubtree[0])), which);
        }
        constraintCount += (permitted == null ? 0 : permitted.length) + (excluded == null ? 0 : excluded.length);
    }

    /**
     * Checks the names of {@code cert} (its subject, e-mail addresses in it, and its Subject Alternative Names)
     * against every constraint added so far. Messages say what is wrong with the name; the caller says which
     * certificate carries it.
     */
    void check(X509Certificate cert) throws RuleViolation {
        if (constraintCount == 0) {
            return;
        }
        GeneralName[] sans = sans(cert);
        X500Name subject = X500Name.getInstance(cert.getSubjectX500Principal().getEncoded());
        comparisons += (sans.length + 1) * constraintCount;
        if (comparisons > MAX_COMPARISONS) {
            throw new RuleViolation(FailureCode.CERT_CHAIN_INVALID,
                    "too many names and name constraints to check (over " + MAX_COMPARISONS + " comparisons)");
        }
        if (subject.getRDNs().length > 0) {
            delegateName(() -> {
                others.checkPermittedDN(subject);
                others.checkExcludedDN(subject);
            }, "the subject " + ChainValidator.nameOf(cert));
            for (String email : subjectEmails(subject)) {
                GeneralName name = new GeneralName(RFC822, email);
                delegateName(() -> {
                    others.checkPermitted(name);
                    others.checkExcluded(name);
                }, "the subject e-mail address '" + email + "'");
            }
        }
        for (GeneralName san : sans) {
            int type = san.getTagNo();
            if (type == DNS) {
                checkDns(stringOf(san));
            } else if (type == IP) {
                checkIp(ASN1OctetString.getInstance(san.getName()).getOctets());
            } else if (type == DIRECTORY || type == RFC822 || type == URI) {
                delegateName(() -> {
                    others.checkPermitted(san);
                    others.checkExcluded(san);
                }, "the name " + san);
            } else if (constrainedUnsupportedTypes.contains(type)) {
                throw new RuleViolation(FailureCode.CERT_CHAIN_INVALID, "a Subject Alternative Name of type "
                        + typeName(type) + " is under a name constraint that cannot be evaluated");
            }
        }
    }

    private void checkDns(String raw) throws RuleViolation {
        if (permittedDns.isEmpty() && excludedDns.isEmpty()) {
            return;
        }
        String name = raw.toLowerCase(Locale.ROOT);
        if (name.endsWith(".")) {
            name = name.substring(0, name.length() - 1); // the host name matcher ignores it too
        }
        boolean wildcard = name.startsWith("*.");
        String base = wildcard ? name.substring(2) : name;
        if (!isHostName(base)) {
            throw new RuleViolation(FailureCode.CERT_CHAIN_INVALID, "the DNS name '" + raw
                    + "' is not a valid host name, so it cannot be checked against the name constraints");
        }
        for (String excluded : excludedDns) {
            if (wildcard ? wildcardMayMatchWithin(base, excluded) : within(name, excluded)) {
                throw new RuleViolation(FailureCode.CERT_CHAIN_INVALID, "the DNS name '" + raw + "' "
                        + (wildcard ? "can match names in" : "is in") + " the excluded subtree '" + excluded + "'");
            }
        }
        for (List<String> permitted : permittedDns) {
            boolean ok = false;
            for (String p : permitted) {
                // every name "*.base" can match is within p exactly when base itself is
                ok |= within(wildcard ? base : name, p);
            }
            if (!ok) {
                throw new RuleViolation(FailureCode.CERT_CHAIN_INVALID, "the DNS name '" + raw + "' "
                        + (wildcard ? "can match names outside" : "is outside") + " the permitted subtrees "
                        + permitted);
            }
        }
    }

    private void checkIp(byte[] address) throws RuleViolation {
        if (permittedIp.isEmpty() && excludedIp.isEmpty()) {
            return;
        }
        if (address.length != 4 && address.length != 16) {
            throw new RuleViolation(FailureCode.CERT_CHAIN_INVALID, "an IP address Subject Alternative Name of "
                    + address.length + " bytes is not an address, so it cannot be checked against the name"
                    + " constraints");
        }
        for (byte[] excluded : excludedIp) {
            if (ipWithin(address, excluded)) {
                throw new RuleViolation(FailureCode.CERT_CHAIN_INVALID,
                        "the IP address " + ipText(address) + " is in an excluded subtree");
            }
        }
        for (List<byte[]> permitted : permittedIp) {
            boolean ok = false;
            for (byte[] p : permitted) {
                ok |= ipWithin(address, p);
            }
            if (!ok) {
                throw new RuleViolation(FailureCode.CERT_CHAIN_INVALID,
                        "the IP address " + ipText(address) + " is outside the permitted subtrees");
            }
        }
    }

    /** {@code name} equals {@code constraint} or lies below it (label boundary). */
    static boolean within(String name, String constraint) {
        return name.equals(constraint) || name.endsWith("." + constraint);
    }

    /** Whether some name {@code label.base} (one label) lies within {@code constraint}. */
    static boolean wildcardMayMatchWithin(String base, String constraint) {
        if (within(base, constraint)) {
            return true; // then every such name does
        }
        // the constraint itself is one label over base: the wildcard matches it
        if (!constraint.endsWith("." + base)) {
            return false;
        }
        String label = constraint.substring(0, constraint.length() - base.length() - 1);
        return !label.isEmpty() && label.indexOf('.') < 0;
    }

    private static boolean ipWithin(byte[] address, byte[] subtree) {
        int n = subtree.length / 2;
        if (address.length != n) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if ((address[i] & subtree[n + i]) != (subtree[i] & subtree[n + i])) {
                return false;
            }
        }
        return true;
    }

    private static String dnsConstraint(GeneralName base, String which) throws RuleViolation {
        String value = stringOf(base);
        String lower = value.toLowerCase(Locale.ROOT);
        if (!isHostName(lower)) {
            throw new RuleViolation(FailureCode.CERT_CHAIN_INVALID, which
                    + " has a name constraint that is not a valid DNS name ('" + value + "')");
        }
        return lower;
    }

    private static byte[] ipConstraint(GeneralName base, String which) throws RuleViolation {
        byte[] b = ASN1OctetString.getInstance(base.getName()).getOctets();
        if (b.length != 8 && b.length != 32) {
            throw new RuleViolation(FailureCode.CERT_CHAIN_INVALID,
                    which + " has an IP address name constraint that is not an address and mask");
        }
        // the mask must be a CIDR prefix: ones, then zeros
        BigInteger mask = new BigInteger(1, java.util.Arrays.copyOfRange(b, b.length / 2, b.length));
        int bits = b.length / 2 * 8;
        BigInteger inverted = mask.xor(BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE));
        if (inverted.add(BigInteger.ONE).and(inverted).signum() != 0) {
            throw new RuleViolation(FailureCode.CERT_CHAIN_INVALID,
                    which + " has an IP address name constraint whose mask is not a prefix (CIDR) mask");
        }
        return b;
    }

    private static int checkSubtree(GeneralSubtree s, String which) throws RuleViolation {
        if ((s.getMinimum() != null && s.getMinimum().signum() != 0) || s.getMaximum() != null) {
            throw new RuleViolation(FailureCode.CERT_CHAIN_INVALID,
                    which + " has a name constraint with minimum or maximum, which RFC 5280 forbids");
        }
        return s.getBase().getTagNo();
    }

    /** A host name in preferred name syntax: LDH labels of 1 to 63 characters, at most 253 in all. */
    static boolean isHostName(String name) {
        return !name.isEmpty() && name.length() <= 253 && HostnameMatcher.isLdhName(name);
    }

    private static GeneralName[] sans(X509Certificate cert) throws RuleViolation {
        byte[] ext = cert.getExtensionValue("2.5.29.17");
        if (ext == null) {
            return new GeneralName[0];
        }
        try {
            return GeneralNames.getInstance(ASN1OctetString.getInstance(ext).getOctets()).getNames();
        } catch (RuntimeException e) {
            throw new RuleViolation(FailureCode.CERT_CHAIN_INVALID,
                    "the Subject Alternative Name extension is malformed");
        }
    }

    private static List<String> subjectEmails(X500Name subject) {
        List<String> out = new ArrayList<>();
        for (RDN rdn : subject.getRDNs()) {
            for (AttributeTypeAndValue ava : rdn.getTypesAndValues()) {
                ASN1ObjectIdentifier type = ava.getType();
                if (type.equals(PKCSObjectIdentifiers.pkcs_9_at_emailAddress)
                        && ava.getValue() instanceof ASN1String s) {
                    out.add(s.getString());
                }
            }
        }
        return out;
    }

    private static String stringOf(GeneralName name) throws RuleViolation {
        ASN1Encodable value = name.getName();
        if (value instanceof DERIA5String s) {
            return s.getString();
        }
        if (value instanceof ASN1String s) {
            return s.getString();
        }
        throw new RuleViolation(FailureCode.CERT_CHAIN_INVALID, "a DNS name is not an IA5String");
    }

    private static String ipText(byte[] a) {
        try {
            return java.net.InetAddress.getByAddress(a).getHostAddress();
        } catch (java.net.UnknownHostException e) {
            return "(" + a.length + " bytes)";
        }
    }

    private static String typeName(int type) {
        return switch (type) {
            case OTHER_NAME -> "otherName";
            case X400 -> "x400Address";
            case EDI_PARTY -> "ediPartyName";
            case REGISTERED_ID -> "registeredID";
            default -> "#" + type;
        };
    }

    private interface Step {
        void run() throws NameConstraintValidatorException;
    }

    private static void delegate(Runnable step, String which) throws RuleViolation {
        try {
            step.run();
        } catch (RuntimeException e) {
            throw new RuleViolation(FailureCode.CERT_CHAIN_INVALID,
                    which + " has a name constraint that cannot be processed");
        }
    }

    private static void delegateName(Step step, String what) throws RuleViolation {
        try {
            step.run();
        } catch (NameConstraintValidatorException e) {
            throw new RuleViolation(FailureCode.CERT_CHAIN_INVALID, what + " violates the name constraints");
        } catch (RuntimeException e) {
            throw new RuleViolation(FailureCode.CERT_CHAIN_INVALID,
                    what + " cannot be checked against the name constraints");
        }
    }
}
