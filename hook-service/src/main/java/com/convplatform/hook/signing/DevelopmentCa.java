package com.convplatform.hook.signing;

import java.net.URI;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pem.PemFiles;
import com.convplatform.crypto.pki.CertificateBuilder;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.hook.config.HookConfig;

/** A local CA and a signing key and chain it issues for the certificate URL's host, when no signing files are set. */
@ApplicationScoped
public class DevelopmentCa {
    private static final Logger LOG = Logger.getLogger(DevelopmentCa.class);

    private final HookConfig config;

    public DevelopmentCa(HookConfig config) {
        this.config = config;
    }

    /** Writes {@code ca.pem}, {@code chain.pem} and {@code key.pem} (owner-only) into {@code dir}. */
    void generate(Path dir, Instant now) {
        String host = URI.create(config.certificateUrl()).getHost();
        KeyPair caKey = KeyPairs.ecP256();
        X509Certificate ca = CertificateBuilder.forKey(caKey.getPublic()).subject("CN=Local hook signing CA")
                .ca(0).validity(now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(3650)))
                .selfSigned(caKey.getPrivate());
        KeyPair leafKey = KeyPairs.rsa(2048);
        X509Certificate leaf = CertificateBuilder.forKey(leafKey.getPublic()).commonName(host).dnsNames(host)
                .validity(now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(397))).serverAuth()
                .issuer(ca, caKey.getPrivate()).build();
        PemFiles.writeOwnerOnly(dir.resolve("ca.pem"), Pem.toPem(ca));
        PemFiles.writeOwnerOnly(dir.resolve("chain.pem"), Pem.toPem(List.of(leaf, ca)));
        PemFiles.writeOwnerOnly(dir.resolve("key.pem"), Pem.toPem(leafKey.getPrivate()));
        LOG.infof("Generated a local hook signing CA and key for %s under %s; receivers trust %s", host, dir,
                dir.resolve("ca.pem"));
    }
}
