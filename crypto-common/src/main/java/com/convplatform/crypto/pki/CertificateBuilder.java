package com.convplatform.crypto.pki;

import java.math.BigInteger;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Objects;

import javax.security.auth.x500.X500Principal;

import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import com.convplatform.crypto.SecureRandoms;

/**
 * Issues X.509 v3 certificates: self-signed certificates for integrators, the platform's local hook CA and leaf, and
 * every shape the tests need (expired, wrong SAN, no CA flag, path length). SHA-256 signatures throughout.
 */
public final class CertificateBuilder {

    private final PublicKey subjectKey;
    private X500Principal subject = new X500Principal("CN=unnamed");
    private final List<String> dnsNames = new ArrayList<>();
    private Instant notBefore = Instant.now().minusSeconds(60);
    private Instant notAfter = Instant.now().plusSeconds(365L * 24 * 3600);
    private Integer caPathLength; // null: not a CA; -1: CA without a path length
    private boolean ca;
    private boolean keyUsage = true;
    private boolean serverAuth;
    private boolean clientAuth;
    private X509Certificate issuerCert;
    private PrivateKey issuerKey;

    private CertificateBuilder(PublicKey subjectKey) {
        this.subjectKey = Objects.requireNonNull(subjectKey, "subjectKey");
    }

    /** Starts a certificate for {@code subjectKey}. */
    public static CertificateBuilder forKey(PublicKey subjectKey) {
        return new CertificateBuilder(subjectKey);
    }

    /** Subject as a common name. */
    public CertificateBuilder commonName(String cn) {
        this.subject = new X500Principal("CN=" + cn.replace(",", "\\,"));
        return this;
    }

    /** Subject as a full distinguished name, for example {@code CN=Root,O=Example}. */
    public CertificateBuilder subject(String dn) {
        this.subject = new X500Principal(dn);
        return this;
    }

    /** Adds DNS Subject Alternative Names. */
    public CertificateBuilder dnsNames(String... names) {
        this.dnsNames.addAll(List.of(names));
        return this;
    }

    public CertificateBuilder validity(Instant notBefore, Instant notAfter) {
        this.notBefore = notBefore;
        this.notAfter = notAfter;
        return this;
    }

    /** Marks the certificate as a CA; {@code pathLength} -1 for no limit. */
    public CertificateBuilder ca(int pathLength) {
        this.ca = true;
        this.caPathLength = pathLength;
        return this;
    }

    /** Leaves out the key usage extension. */
    public CertificateBuilder withoutKeyUsage() {
        this.keyUsage = false;
        return this;
    }

    /** Adds the extended key usage serverAuth. */
    public CertificateBuilder serverAuth() {
        this.serverAuth = true;
        return this;
    }

    /** Adds the extended key usage clientAuth. */
    public CertificateBuilder clientAuth() {
        this.clientAuth = true;
        return this;
    }

    /** Signs with this issuer; without it the certificate is self-signed (the subject key must then be given). */
    public CertificateBuilder issuer(X509Certificate cert, PrivateKey key) {
        this.issuerCert = cert;
        this.issuerKey = key;
        return this;
    }

    /** Issues the certificate signed by the issuer. */
    public X509Certificate build() {
        if (issuerKey == null) {
            throw new IllegalStateException("No issuer: use selfSigned(privateKey) or issuer(cert, key)");
        }
        return sign(issuerCert.getSubjectX500Principal(), issuerKey, issuerCert.getPublicKey());
    }

    /** Issues a self-signed certificate with the subject's own private key. */
    public X509Certificate selfSigned(PrivateKey subjectPrivateKey) {
        return sign(subject, subjectPrivateKey, subjectKey);
    }

    /** Convenience: a key pair's self-signed certificate. */
    public static X509Certificate selfSigned(KeyPair pair, String commonName, Instant notAfter,
            String... dnsNames) {
        return forKey(pair.getPublic()).commonName(commonName).dnsNames(dnsNames)
                .validity(Instant.now().minusSeconds(60), notAfter).selfSigned(pair.getPrivate());
    }

    private X509Certificate sign(X500Principal issuer, PrivateKey signingKey, PublicKey issuerPublicKey) {
        try {
            JcaX509ExtensionUtils utils = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(issuer,
                    new BigInteger(127, SecureRandoms.shared()).add(BigInteger.ONE), Date.from(notBefore),
                    Date.from(notAfter),
                    subject, subjectKey);
            b.addExtension(Extension.subjectKeyIdentifier, false, utils.createSubjectKeyIdentifier(subjectKey));
            b.addExtension(Extension.authorityKeyIdentifier, false,
                    utils.createAuthorityKeyIdentifier(issuerPublicKey));
            if (ca) {
                b.addExtension(Extension.basicConstraints, true, caPathLength != null && caPathLength >= 0
                        ? new BasicConstraints(caPathLength)
                        : new BasicConstraints(true));
                if (keyUsage) {
                    b.addExtension(Extension.keyUsage, true,
                            new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign | KeyUsage.digitalSignature));
                }
            } else if (keyUsage) {
                b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature
                        | (subjectKey instanceof RSAKey ? KeyUsage.keyEncipherment : 0)));
            }
            if (serverAuth || clientAuth) {
                List<KeyPurposeId> purposes = new ArrayList<>();
                if (serverAuth) {
                    purposes.add(KeyPurposeId.id_kp_serverAuth);
                }
                if (clientAuth) {
                    purposes.add(KeyPurposeId.id_kp_clientAuth);
                }
                b.addExtension(Extension.extendedKeyUsage, false,
                        new ExtendedKeyUsage(purposes.toArray(new KeyPurposeId[0])));
            }
            if (!dnsNames.isEmpty()) {
                GeneralName[] names = dnsNames.stream().map(n -> new GeneralName(GeneralName.dNSName, n))
                        .toArray(GeneralName[]::new);
                b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names));
            }
            String alg = signingKey instanceof RSAKey ? "SHA256withRSA" : "SHA256withECDSA";
            return new JcaX509CertificateConverter().getCertificate(b.build(new JcaContentSignerBuilder(alg)
                    .build(signingKey)));
        } catch (CertIOException | OperatorCreationException | CertificateException
                | java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("Cannot issue the certificate: " + e.getMessage(), e);
        }
    }
}
