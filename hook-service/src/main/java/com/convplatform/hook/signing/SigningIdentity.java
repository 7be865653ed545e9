package com.convplatform.hook.signing;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.KeyPair;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;

import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.hook.HookSigner;
import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pem.PemFiles;
import com.convplatform.crypto.pki.CertificateBuilder;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.crypto.sig.CryptoProviders;
import com.convplatform.hook.config.HookConfig;

/**
 * The platform's hook-signing key and certificate chain. From PEM files when configured (Kubernetes secrets);
 * otherwise a local CA and an RSA-2048 signing certificate for the host of {@code hook.certificate-url} are made on
 * first start and kept under the data directory ({@code signing/ca.pem} is what receivers trust).
 */
@ApplicationScoped
public class SigningIdentity {
    private static final Logger LOG = Logger.getLogger(SigningIdentity.class);

    /** The chain and signer in use, and the key (for the local HTTPS seam only). */
    public record Current(HookSigner signer, PrivateKey key, List<X509Certificate> chain, String chainPem,
            String fingerprint) {
    }

    private final HookConfig config;
    private final Clock clock;
    private volatile Current current;

    public SigningIdentity(HookConfig config, Clock clock) {
        this.config = config;
        this.clock = clock;
    }

    @PostConstruct
    void load() {
        PrivateKey key;
        String chainPem;
        if (config.signing().keyFile().isPresent()) {
            key = Pem.parsePrivateKey(PemFiles.read(Paths.get(config.signing().keyFile().get())));
            chainPem = PemFiles.read(Paths.get(config.signing().chainFile().orElseThrow(() -> new IllegalStateException(
                    "hook.signing.key-file is set but hook.signing.chain-file is not"))));
        } else {
            Path dir = Paths.get(config.dataDir(), "signing");
            if (!Files.exists(dir.resolve("key.pem"))) {
                generate(dir);
            }
            key = Pem.parsePrivateKey(PemFiles.read(dir.resolve("key.pem")));
            chainPem = PemFiles.read(dir.resolve("chain.pem"));
        }
        List<X509Certificate> chain;
        try {
            chain = Pem.parseCertificates(chainPem);
        } catch (VerificationException e) {
            throw new IllegalStateException("The hook signing chain is not valid PEM: " + e.getMessage(), e);
        }
        current = new Current(new HookSigner(key, config.certificateUrl(), CryptoProviders.recommended()), key, chain,
                Pem.toPem(chain), fingerprint(chain.get(0)));
        LOG.infof("Hook signing certificate %s (not after %s), served for %s", current.fingerprint(),
                chain.get(0).getNotAfter().toInstant(), config.certificateUrl());
    }

    public Current current() {
        return current;
    }

    private void generate(Path dir) {
        String host = URI.create(config.certificateUrl()).getHost();
        Instant now = clock.instant();
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

    private static String fingerprint(X509Certificate cert) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(cert.getEncoded()));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

}
