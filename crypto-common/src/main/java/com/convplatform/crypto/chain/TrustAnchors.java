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

/**
 * An immutable set of root certificates that chains may lead to. A root is trusted as configured, but the one that
 * ends a path must still be valid at the time, be a CA, may sign certificates, have a strong key and no unknown
 * critical extension; its own name constraints apply to the path ({@link ChainValidator}).
 */
public final class TrustAnchors {
    private final List<X509Certificate> roots;
    private final Set<TrustAnchor> anchors;

    private TrustAnchors(List<X509Certificate> roots) {
        this.roots = List.copyOf(roots);
        Set<TrustAnchor> set = new HashSet<>();
        for (X509Certificate c : this.roots) {
            // The root's own name constraints are applied by PathRules: the JDK's PKIX code refuses an anchor that
            // is handed constraints, and applies none of a root's own otherwise.
            set.add(new TrustAnchor(c, null));
        }
        this.anchors = Set.copyOf(set);
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
