package com.convplatform.crypto.chain;

import java.security.KeyStore;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/** An immutable set of root certificates that chains may lead to. */
public final class TrustAnchors {
    private final List<X509Certificate> roots;
    private final Set<TrustAnchor> anchors;

    private TrustAnchors(List<X509Certificate> roots) {
        this.roots = List.copyOf(roots);
        Set<TrustAnchor> set = new HashSet<>();
        for (X509Certificate c : this.roots) {
            set.add(new TrustAnchor(c, nameConstraints(c)));
        }
        this.anchors = Set.copyOf(set);
    }

    /**
     * The root's own name constraints, DER-encoded, or null. The JDK's PKIX code applies a trust anchor's name
     * constraints only when they are handed over separately, so a constrained root would otherwise be unconstrained.
     */
    private static byte[] nameConstraints(X509Certificate root) {
        byte[] ext = root.getExtensionValue("2.5.29.30");
        if (ext == null) {
            return null;
        }
        try {
            return org.bouncycastle.asn1.ASN1OctetString.getInstance(ext).getOctets();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("The root " + root.getSubjectX500Principal().getName()
                    + " has a malformed name constraints extension", e);
        }
    }

    /** Exactly these roots. */
    public static TrustAnchors of(List<X509Certificate> roots) {
        return new TrustAnchors(roots);
    }

    /** The JVM's default trusted roots (its cacerts), as its default trust manager sees them. */
    public static TrustAnchors jdkDefaults() {
        try {
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init((KeyStore) null);
            for (TrustManager tm : tmf.getTrustManagers()) {
                if (tm instanceof X509TrustManager x) {
                    return new TrustAnchors(Arrays.asList(x.getAcceptedIssuers()));
                }
            }
            throw new IllegalStateException("The JVM has no X.509 trust manager");
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException("Cannot read the JVM's trusted roots", e);
        }
    }

    /** These anchors plus {@code extra}. */
    public TrustAnchors plus(List<X509Certificate> extra) {
        List<X509Certificate> all = new ArrayList<>(roots);
        all.addAll(extra);
        return new TrustAnchors(all);
    }

    /** The root certificates. */
    public List<X509Certificate> certificates() {
        return roots;
    }

    Set<TrustAnchor> anchors() {
        return anchors;
    }

    boolean contains(X509Certificate cert) {
        return roots.contains(cert);
    }

    public boolean isEmpty() {
        return roots.isEmpty();
    }
}
