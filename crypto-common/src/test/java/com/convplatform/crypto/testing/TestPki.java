package com.convplatform.crypto.testing;

import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

import com.convplatform.crypto.chain.TrustAnchors;
import com.convplatform.crypto.fetch.TlsTrust;
import com.convplatform.crypto.pki.CertificateBuilder;
import com.convplatform.crypto.pki.KeyPairs;

/**
 * A small test PKI made fresh per test class: a root CA, an intermediate CA (path length 0) and leaves issued by the
 * intermediate. Shared with the services' tests through the test-jar.
 */
public final class TestPki {
    public final KeyPair rootKey;
    public final X509Certificate root;
    public final KeyPair intermediateKey;
    public final X509Certificate intermediate;

    private TestPki(KeyPair rootKey, X509Certificate root, KeyPair intermediateKey, X509Certificate intermediate) {
        this.rootKey = rootKey;
        this.root = root;
        this.intermediateKey = intermediateKey;
        this.intermediate = intermediate;
    }

    /** A new root and intermediate (EC P-256, fast to make), valid from a day ago for ten years. */
    public static TestPki create() {
        Instant from = Instant.now().minus(1, ChronoUnit.DAYS);
        Instant to = Instant.now().plus(3650, ChronoUnit.DAYS);
        KeyPair rk = KeyPairs.ecP256();
        X509Certificate root = CertificateBuilder.forKey(rk.getPublic()).subject("CN=Test Root CA,O=Platform Tests")
                .ca(-1).validity(from, to).selfSigned(rk.getPrivate());
        KeyPair ik = KeyPairs.ecP256();
        X509Certificate inter = CertificateBuilder.forKey(ik.getPublic())
                .subject("CN=Test Intermediate CA,O=Platform Tests").ca(0).validity(from, to)
                .issuer(root, rk.getPrivate()).build();
        return new TestPki(rk, root, ik, inter);
    }

    /** Roots to trust: just this PKI's root. */
    public TrustAnchors anchors() {
        return TrustAnchors.of(List.of(root));
    }

    /** A leaf for {@code key} with these DNS names, issued by the intermediate, valid for a year. */
    public Leaf leaf(KeyPair key, String... dnsNames) {
        return leaf(key, Instant.now().minus(1, ChronoUnit.HOURS), Instant.now().plus(365, ChronoUnit.DAYS),
                dnsNames);
    }

    /** A leaf with an explicit validity window. */
    public Leaf leaf(KeyPair key, Instant notBefore, Instant notAfter, String... dnsNames) {
        X509Certificate cert = CertificateBuilder.forKey(key.getPublic())
                .commonName(dnsNames.length > 0 ? dnsNames[0] : "leaf").dnsNames(dnsNames)
                .validity(notBefore, notAfter).serverAuth().clientAuth()
                .issuer(intermediate, intermediateKey.getPrivate()).build();
        return new Leaf(key, cert, List.of(cert, intermediate));
    }

    /** A TLS server context presenting a fresh leaf for {@code dnsNames}. */
    public SSLContext serverContext(String... dnsNames) {
        Leaf leaf = leaf(KeyPairs.ecP256(), dnsNames);
        try {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            char[] pw = "changeit".toCharArray();
            ks.setKeyEntry("server", leaf.key().getPrivate(), pw,
                    leaf.chain().toArray(new X509Certificate[0]));
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, pw);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf.getKeyManagers(), null, null);
            return ctx;
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A TLS client context that trusts only this PKI's root. */
    public SSLContext clientContext() {
        return TlsTrust.trusting(anchors());
    }

    /**
     * A leaf certificate, its key and the chain to send (leaf, then intermediate).
     *
     * @param key the leaf's key pair
     * @param cert the leaf certificate
     * @param chain leaf first, then the intermediate
     */
    public record Leaf(KeyPair key, X509Certificate cert, List<X509Certificate> chain) {
    }
}
