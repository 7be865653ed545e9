package com.convplatform.hook.signing;

import java.nio.file.Files;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Clock;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import com.convplatform.crypto.Fingerprints;
import com.convplatform.crypto.hook.HookSigner;
import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.sig.CryptoProviders;
import com.convplatform.hook.config.HookConfig;
import com.convplatform.support.ConfigChecks;

/** The hook-signing key and chain (from files, or generated), checked at start, and the signer of hooks. */
@ApplicationScoped
public class SigningIdentity {
    private static final Logger LOG = Logger.getLogger(SigningIdentity.class);

    private final HookSigner signer;
    private final PrivateKey key; // for the local HTTPS seam only
    private final CertificateDocument document;

    public SigningIdentity(HookConfig config, Clock clock, DevelopmentCa developmentCa) {
        SigningChecks.Source source = SigningChecks.Source.of(config); // both files set, or neither (HookConfigChecks)
        if (source.generated() && !Files.exists(source.key())) {
            developmentCa.generate(source.key().getParent(), clock.instant());
        }
        ConfigChecks checks = ConfigChecks.of("hook-service"); // the set files were checked before (HookConfigChecks)
        SigningChecks.Material read = SigningChecks.check(source, config.certificateUrl(), clock.instant(), checks);
        checks.throwIfAny();
        key = read.key();
        X509Certificate first = read.chain().get(0);
        document = new CertificateDocument(Pem.toPem(read.chain()), first.getNotAfter().toInstant(),
                Fingerprints.sha256(first));
        signer = new HookSigner(key, config.certificateUrl(), CryptoProviders.recommended());
        LOG.infof("Hook signing certificate %s (not after %s), served for %s", document.sha256Fingerprint(),
                document.notAfter(), config.certificateUrl());
    }

    public HookSigner signer() {
        return signer;
    }

    CertificateDocument document() {
        return document;
    }

    PrivateKey key() {
        return key;
    }
}
