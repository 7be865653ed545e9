package com.convplatform.crypto.fetch;

import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.List;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import com.convplatform.crypto.chain.TrustAnchors;

/** Builds the SSL context used to download certificates: the JVM's roots plus, when configured, extra ones. */
public final class TlsTrust {
    private TlsTrust() {
    }

    /** The JVM's roots plus {@code extraRoots}; the JVM's default context when there are none. */
    public static SSLContext withExtraRoots(List<X509Certificate> extraRoots) {
        if (extraRoots == null || extraRoots.isEmpty()) {
            return CertificateFetcher.defaultSslContext();
        }
        return trusting(TrustAnchors.jdkDefaults().plus(extraRoots));
    }

    /** Only the given roots. */
    public static SSLContext trusting(TrustAnchors anchors) {
        try {
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, trustManagers(anchors).getTrustManagers(), null);
            return ctx;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Cannot build the TLS trust store", e);
        }
    }

    /**
     * A PKIX trust manager factory that trusts only the given roots. Built from certificates, not from a cacerts file:
     * a native image has no {@code java.home} to find one in.
     */
    public static TrustManagerFactory trustManagers(TrustAnchors anchors) {
        try {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            int i = 0;
            for (X509Certificate c : anchors.certificates()) {
                ks.setCertificateEntry("root-" + i++, c);
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
            tmf.init(ks);
            return tmf;
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new IllegalStateException("Cannot build the TLS trust store", e);
        }
    }
}
