package com.convplatform.management.block;

import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

import org.jboss.logging.Logger;

import com.convplatform.crypto.chain.ValidatedChain;
import com.convplatform.crypto.management.ManagementRequestVerifier;
import com.convplatform.management.account.AccountService;
import com.convplatform.support.ApiException;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.Startup;
import io.quarkus.scheduler.Scheduled;

/**
 * Certificates blocked by the operator, by SHA-256 fingerprint, and purges of the downloaded-chain cache. Both are rows
 * in the database, so every replica applies them: the replica that took the operator's call at once, the others at
 * their next read, every {@code management.blocks.refresh} (5 s by default). A signed request whose chain holds a
 * blocked certificate (signing certificate, intermediate or root) is refused with CERT_BLOCKED, whatever the cache
 * holds. When the database cannot be read, the last blocks read stay in force and the failure is logged and counted.
 */
@ApplicationScoped
@Startup
public class CertificateBlocks {
    private static final Logger LOG = Logger.getLogger(CertificateBlocks.class);

    /** A blocked certificate as the operator API shows it. */
    public record Block(String sha256Fingerprint, String reason, Instant blockedAt) {
    }

    private final ManagementRequestVerifier verifier;
    private final Clock clock;
    private final MeterRegistry metrics;
    private volatile Set<String> blocked;
    private long lastPurge;

    public CertificateBlocks(ManagementRequestVerifier verifier, Clock clock, MeterRegistry metrics) {
        this.verifier = verifier;
        this.clock = clock;
        this.metrics = metrics;
        // Earlier purges do not concern a replica that starts with an empty cache.
        QuarkusTransaction.requiringNew().run(() -> {
            Long newest = ChainPurge.find("select max(id) from ChainPurge").project(Long.class).firstResult();
            lastPurge = newest == null ? 0 : newest;
            blocked = fingerprints();
        });
    }

    /**
     * Refuses a verified chain that holds a blocked certificate (400 CERT_BLOCKED). While nothing is blocked this costs
     * nothing; while something is, one SHA-256 per certificate of the chain (a few microseconds against the tens of
     * the signature check, so they are not cached).
     */
    public void check(ValidatedChain chain) {
        Set<String> now = blocked;
        if (now.isEmpty()) {
            return;
        }
        for (X509Certificate c : chain.certificates()) {
            String fingerprint = AccountService.fingerprint(c);
            if (now.contains(fingerprint)) {
                metrics.counter("management.signed.rejections", "code", "CERT_BLOCKED").increment();
                throw new ApiException(400, "CERT_BLOCKED", "The certificate " + c.getSubjectX500Principal().getName()
                        + " (SHA-256 " + fingerprint + ") in the signing chain is blocked by the platform operator;"
                        + " sign with a newly issued certificate");
            }
        }
    }

    /** Blocks a certificate; blocking one that is already blocked keeps the first reason. */
    @Transactional
    public Block block(String fingerprint, String reason) {
        String fp = normalise(fingerprint);
        BlockedCertificate b = BlockedCertificate.findById(fp);
        if (b == null) {
            b = new BlockedCertificate();
            b.sha256Fingerprint = fp;
            b.reason = reason;
            b.blockedAt = clock.instant();
            b.persist();
        }
        blocked = fingerprints();
        return view(b);
    }

    /** Lifts a block; false when the certificate was not blocked. */
    @Transactional
    public boolean unblock(String fingerprint) {
        boolean removed = BlockedCertificate.deleteById(normalise(fingerprint));
        blocked = fingerprints();
        return removed;
    }

    @Transactional
    public List<Block> list() {
        return BlockedCertificate.<BlockedCertificate>listAll().stream().map(CertificateBlocks::view).toList();
    }

    /** Drops the cached chains of one account (null: of all accounts) on every replica. */
    public void purge(String fqdn) {
        QuarkusTransaction.requiringNew().run(() -> {
            ChainPurge p = new ChainPurge();
            p.fqdn = fqdn == null ? null : fqdn.toLowerCase(Locale.ROOT);
            p.requestedAt = clock.instant();
            p.persist();
        });
        refresh();
    }

    /** Reads the blocks and the purges recorded since the last read (through any replica). */
    @Scheduled(every = "${management.blocks.refresh}", delayed = "${management.blocks.refresh}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    synchronized void refresh() {
        try {
            QuarkusTransaction.requiringNew().run(() -> {
                blocked = fingerprints();
                for (ChainPurge p : ChainPurge.<ChainPurge>list("id > ?1 order by id", lastPurge)) {
                    verifier.purge(p.fqdn);
                    lastPurge = p.id;
                    LOG.infof("Purged the cached certificate chains of %s", p.fqdn == null ? "every account" : p.fqdn);
                }
            });
        } catch (RuntimeException e) {
            metrics.counter("management.blocks.refresh.failures").increment();
            LOG.warnf("Reading the certificate blocks and chain purges failed (the %d blocks read last stay in"
                    + " force): %s", blocked.size(), e.toString());
        }
    }

    private static Set<String> fingerprints() {
        return BlockedCertificate.<BlockedCertificate>streamAll().map(b -> b.sha256Fingerprint)
                .collect(Collectors.toUnmodifiableSet());
    }

    private static Block view(BlockedCertificate b) {
        return new Block(b.sha256Fingerprint, b.reason, b.blockedAt);
    }

    private static String normalise(String fingerprint) {
        String fp = fingerprint == null ? "" : fingerprint.replace(":", "").toLowerCase(Locale.ROOT);
        if (!fp.matches("[0-9a-f]{64}")) {
            throw new ApiException(400, "INVALID_FINGERPRINT", "A certificate is named by the SHA-256 of its DER"
                    + " encoding: 64 hexadecimal digits, colons allowed (openssl x509 -noout -fingerprint -sha256)");
        }
        return fp;
    }
}
