package com.convplatform.management.account;

import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.transaction.Transactional;

import com.convplatform.crypto.Fingerprints;
import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.chain.ChainValidator;
import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.sig.KeyPolicy;
import com.convplatform.management.account.AccountViews.CertificateView;
import com.convplatform.support.ApiException;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

/** An account's self-signed certificates: registering, listing and revoking them, and those in use. */
@ApplicationScoped
public class CertificateService {
    private final Clock clock;
    private final AccountRepository repository;
    private final DirectReads direct;
    private final Cache<String, X509Certificate> parsed = Caffeine.newBuilder().maximumSize(AccountService.CACHED)
            .build();

    private final Event<ChangeFeed.Changed> changed;

    public CertificateService(Clock clock, AccountRepository repository, DirectReads direct,
            Event<ChangeFeed.Changed> changed) {
        this.changed = changed;
        this.clock = clock;
        this.repository = repository;
        this.direct = direct;
    }

    public record Registration(CertificateView certificate, boolean created) {
    }

    /**
     * Once per certificate, and a revoked one stays revoked (README, Decisions). The lock on the account's row
     * serialises its registrations, so two concurrent calls with one certificate make one registration.
     */
    @Transactional
    public Registration register(String accountId, String pem) {
        Account a = AccountService.account(repository.findForUpdate(accountId), accountId);
        X509Certificate cert;
        try {
            List<X509Certificate> certs = Pem.parseCertificates(pem);
            if (certs.size() != 1) {
                throw AccountService.bad("CERT_MALFORMED", "Send exactly one certificate, not " + certs.size());
            }
            cert = certs.get(0);
            ChainValidator.validateSelfSigned(cert, a.fqdn, clock.instant());
            KeyPolicy.check(cert.getPublicKey());
        } catch (VerificationException e) {
            throw AccountService.bad(e.code().name(), e.getMessage());
        }
        String fingerprint = Fingerprints.sha256(cert);
        RegisteredCertificate r = repository.firstByFingerprint(accountId, fingerprint);
        if (r != null) {
            if (r.revokedAt != null) {
                throw new ApiException(409, "CERTIFICATE_REVOKED", "This certificate was registered as " + r.id
                        + " and revoked at " + r.revokedAt + "; a revoked certificate stays revoked: create a new key"
                        + " pair and certificate and register that");
            }
            return new Registration(CertificateView.of(r), false);
        }
        r = new RegisteredCertificate();
        r.id = UUID.randomUUID().toString();
        r.accountId = accountId;
        r.pem = Pem.toPem(cert);
        r.sha256Fingerprint = fingerprint;
        r.notAfter = cert.getNotAfter().toInstant();
        r.createdAt = clock.instant();
        repository.persist(r);
        return new Registration(CertificateView.of(r), true);
    }

    public List<CertificateView> certificates(String accountId) {
        AccountService.account(repository.find(accountId), accountId);
        return repository.certificatesOf(accountId).stream().map(CertificateView::of).toList();
    }

    @Transactional
    public void revoke(String accountId, String certificateUuid) {
        RegisteredCertificate r = repository.findCertificate(certificateUuid).filter(c -> c.accountId.equals(accountId))
                .orElseThrow(() -> new ApiException(404, "CERTIFICATE_NOT_FOUND",
                        "Account " + accountId + " has no certificate " + certificateUuid));
        if (r.revokedAt == null) {
            r.revokedAt = clock.instant();
            changed.fire(new ChangeFeed.Changed()); // at once here; the other replicas hear it from the trigger
        }
    }

    /**
     * Revocation is held in memory while the change feed listens (DirectReads): one revoked is refused at once by this
     * replica and within milliseconds by the others.
     */
    public Optional<X509Certificate> activeCertificate(String accountId, String certificateUuid) {
        if (certificateUuid == null || certificateUuid.length() > 64
                || !direct.certificateActive(certificateUuid, accountId)) {
            return Optional.empty();
        }
        return Optional.of(AccountService.cached(parsed, certificateUuid,
                id -> parse(repository.findCertificate(id).orElseThrow().pem), "reading the certificate"));
    }

    private static X509Certificate parse(String pem) {
        try {
            return Pem.parseCertificates(pem).get(0);
        } catch (VerificationException e) {
            throw new IllegalStateException("A stored certificate no longer parses", e);
        }
    }
}
