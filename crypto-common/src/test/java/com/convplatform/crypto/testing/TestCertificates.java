package com.convplatform.crypto.testing;

import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAKey;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;

import javax.security.auth.x500.X500Principal;

import org.bouncycastle.asn1.ASN1EncodableVector;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.DEROctetString;
import org.bouncycastle.asn1.DERSequence;
import org.bouncycastle.asn1.DERUTF8String;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.GeneralSubtree;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.x509.NameConstraints;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Certificates of every shape the chain tests need and {@link com.convplatform.crypto.pki.CertificateBuilder} does
 * not make: any extended key usage (or an empty one), any key usage, name constraints, critical SANs, IP SANs, a CA
 * without basicConstraints, an unknown critical extension. Raw extension encodings are written as given, so a test can
 * make a certificate a CA would never issue.
 */
public final class TestCertificates {
    public static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
    public static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
    public static final String CODE_SIGNING = "1.3.6.1.5.5.7.3.3";
    public static final String EMAIL_PROTECTION = "1.3.6.1.5.5.7.3.4";
    public static final String TIME_STAMPING = "1.3.6.1.5.5.7.3.8";
    public static final String ANY_EXTENDED_KEY_USAGE = "2.5.29.37.0";

    private static final SecureRandom RANDOM = new SecureRandom();

    private final PublicKey key;
    private X500Principal subject = new X500Principal("CN=test");
    private Instant notBefore = Instant.now().minus(1, ChronoUnit.HOURS);
    private Instant notAfter = Instant.now().plus(30, ChronoUnit.DAYS);
    private X509Certificate issuer;
    private PrivateKey issuerKey;
    private final List<GeneralName> sans = new ArrayList<>();
    private boolean criticalSans;
    private Integer pathLength; // null: no basicConstraints; -1: CA without a limit
    private boolean ca;
    private boolean defaultKeyUsage = true;
    private Integer keyUsage; // with defaultKeyUsage false: these bits, or null for no extension
    private List<String> extendedKeyUsage;
    private final List<GeneralSubtree> permitted = new ArrayList<>();
    private final List<GeneralSubtree> excluded = new ArrayList<>();
    private boolean nameConstraints;
    private boolean emptyNameConstraints;
    private String unknownCriticalExtension;

    private TestCertificates(PublicKey key) {
        this.key = key;
    }

    /** A certificate for {@code key}; an end-entity certificate unless {@link #ca(int)} is called. */
    public static TestCertificates forKey(PublicKey key) {
        return new TestCertificates(key);
    }

    public TestCertificates subject(String dn) {
        this.subject = new X500Principal(dn);
        return this;
    }

    public TestCertificates validity(Instant from, Instant to) {
        this.notBefore = from;
        this.notAfter = to;
        return this;
    }

    /** Adds DNS SANs, written exactly as given (wildcards, trailing dots and bad syntax included). */
    public TestCertificates dns(String... names) {
        for (String n : names) {
            sans.add(new GeneralName(GeneralName.dNSName, n));
        }
        return this;
    }

    /** Adds IP address SANs. */
    public TestCertificates ip(String... addresses) {
        for (String a : addresses) {
            sans.add(new GeneralName(GeneralName.iPAddress, new DEROctetString(address(a))));
        }
        return this;
    }

    /** Adds an otherName SAN of a private type. */
    public TestCertificates otherName(String oid, String value) {
        ASN1EncodableVector v = new ASN1EncodableVector();
        v.add(new ASN1ObjectIdentifier(oid));
        v.add(new org.bouncycastle.asn1.DERTaggedObject(true, 0, new DERUTF8String(value)));
        sans.add(new GeneralName(GeneralName.otherName, new DERSequence(v)));
        return this;
    }

    /** Marks the SAN extension critical. */
    public TestCertificates criticalSans() {
        this.criticalSans = true;
        return this;
    }

    /** A CA (basicConstraints CA=true, critical); {@code pathLength} -1 for no limit. */
    public TestCertificates ca(int pathLength) {
        this.ca = true;
        this.pathLength = pathLength;
        return this;
    }

    /** A CA certificate without the basicConstraints extension (key usage keyCertSign still set). */
    public TestCertificates caWithoutBasicConstraints() {
        this.ca = true;
        this.pathLength = null;
        return this;
    }

    /** Key usage bits ({@link KeyUsage}); the default is digitalSignature (a CA: plus keyCertSign and cRLSign). */
    public TestCertificates keyUsage(int bits) {
        this.defaultKeyUsage = false;
        this.keyUsage = bits;
        return this;
    }

    public TestCertificates noKeyUsage() {
        this.defaultKeyUsage = false;
        this.keyUsage = null;
        return this;
    }

    /** An extended key usage extension listing these OIDs; no OIDs makes an empty (invalid) extension. */
    public TestCertificates extendedKeyUsage(String... oids) {
        this.extendedKeyUsage = List.of(oids);
        return this;
    }

    public TestCertificates permitDns(String... names) {
        for (String n : names) {
            permitted.add(new GeneralSubtree(new GeneralName(GeneralName.dNSName, n)));
        }
        nameConstraints = true;
        return this;
    }

    public TestCertificates excludeDns(String... names) {
        for (String n : names) {
            excluded.add(new GeneralSubtree(new GeneralName(GeneralName.dNSName, n)));
        }
        nameConstraints = true;
        return this;
    }

    /** A permitted IP subtree in CIDR form, such as {@code 10.0.0.0/8}. */
    public TestCertificates permitIp(String cidr) {
        permitted.add(new GeneralSubtree(ipSubtree(cidr)));
        nameConstraints = true;
        return this;
    }

    public TestCertificates excludeIp(String cidr) {
        excluded.add(new GeneralSubtree(ipSubtree(cidr)));
        nameConstraints = true;
        return this;
    }

    /** An excluded otherName subtree of this type. */
    public TestCertificates excludeOtherName(String oid) {
        ASN1EncodableVector v = new ASN1EncodableVector();
        v.add(new ASN1ObjectIdentifier(oid));
        v.add(new org.bouncycastle.asn1.DERTaggedObject(true, 0, new DERUTF8String("")));
        excluded.add(new GeneralSubtree(new GeneralName(GeneralName.otherName, new DERSequence(v))));
        nameConstraints = true;
        return this;
    }

    /** A name constraints extension with neither permitted nor excluded subtrees (forbidden by RFC 5280). */
    public TestCertificates emptyNameConstraints() {
        this.emptyNameConstraints = true;
        return this;
    }

    /** Adds a critical extension of a private OID nobody understands. */
    public TestCertificates unknownCriticalExtension(String oid) {
        this.unknownCriticalExtension = oid;
        return this;
    }

    public TestCertificates issuer(X509Certificate cert, PrivateKey key) {
        this.issuer = cert;
        this.issuerKey = key;
        return this;
    }

    /** Issued by the issuer, or self-signed with {@code ownKey} when no issuer was given. */
    public X509Certificate build() {
        if (issuerKey == null) {
            throw new IllegalStateException("no issuer: use selfSigned(key)");
        }
        return sign(issuer.getSubjectX500Principal(), issuer.getPublicKey(), issuerKey);
    }

    public X509Certificate selfSigned(PrivateKey ownKey) {
        return sign(subject, key, ownKey);
    }

    private X509Certificate sign(X500Principal issuerName, PublicKey issuerPublic, PrivateKey signer) {
        try {
            JcaX509ExtensionUtils utils = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(issuerName,
                    new BigInteger(127, RANDOM).add(BigInteger.ONE), Date.from(notBefore), Date.from(notAfter),
                    subject, key);
            b.addExtension(Extension.subjectKeyIdentifier, false, utils.createSubjectKeyIdentifier(key));
            b.addExtension(Extension.authorityKeyIdentifier, false,
                    utils.createAuthorityKeyIdentifier(issuerPublic));
            if (ca && pathLength != null) {
                b.addExtension(Extension.basicConstraints, true,
                        pathLength >= 0 ? new BasicConstraints(pathLength) : new BasicConstraints(true));
            }
            Integer ku = keyUsage;
            if (defaultKeyUsage) {
                ku = ca
                        ? KeyUsage.keyCertSign | KeyUsage.cRLSign | KeyUsage.digitalSignature
                        : KeyUsage.digitalSignature | (key instanceof RSAKey ? KeyUsage.keyEncipherment : 0);
            }
            if (ku != null) {
                b.addExtension(Extension.keyUsage, true, new KeyUsage(ku));
            }
            if (extendedKeyUsage != null) {
                ASN1EncodableVector v = new ASN1EncodableVector();
                for (String oid : extendedKeyUsage) {
                    v.add(new ASN1ObjectIdentifier(oid));
                }
                b.addExtension(Extension.extendedKeyUsage, false, new DERSequence(v));
            }
            if (!sans.isEmpty()) {
                b.addExtension(Extension.subjectAlternativeName, criticalSans,
                        new GeneralNames(sans.toArray(new GeneralName[0])));
            }
            if (emptyNameConstraints) {
                b.addExtension(Extension.nameConstraints, true, new DERSequence());
            } else if (nameConstraints) {
                b.addExtension(Extension.nameConstraints, true,
                        new NameConstraints(permitted.isEmpty() ? null : permitted.toArray(new GeneralSubtree[0]),
                                excluded.isEmpty() ? null : excluded.toArray(new GeneralSubtree[0])));
            }
            if (unknownCriticalExtension != null) {
                b.addExtension(new ASN1ObjectIdentifier(unknownCriticalExtension), true,
                        new DEROctetString(new byte[]{5, 0}));
            }
            String alg = signer instanceof RSAKey ? "SHA256withRSA" : "SHA256withECDSA";
            return new JcaX509CertificateConverter()
                    .getCertificate(b.build(new JcaContentSignerBuilder(alg).build(signer)));
        } catch (Exception e) {
            throw new IllegalStateException("Cannot issue the test certificate: " + e.getMessage(), e);
        }
    }

    private static GeneralName ipSubtree(String cidr) {
        String[] parts = cidr.split("/");
        byte[] address = address(parts[0]);
        int prefix = Integer.parseInt(parts[1]);
        byte[] both = new byte[address.length * 2];
        System.arraycopy(address, 0, both, 0, address.length);
        for (int i = 0; i < prefix; i++) {
            both[address.length + i / 8] |= (byte) (0x80 >>> (i % 8));
        }
        return new GeneralName(GeneralName.iPAddress, new DEROctetString(both));
    }

    private static byte[] address(String literal) {
        try {
            return InetAddress.getByName(literal).getAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(literal, e);
        }
    }
}
