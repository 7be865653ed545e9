package com.convplatform.management.block;

import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.jboss.logging.Logger;

import com.convplatform.crypto.Fingerprints;
import com.convplatform.crypto.chain.ValidatedChain;
import com.convplatform.crypto.management.ManagementRequestVerifier;
import com.convplatform.support.ApiException;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.Startup;
import io.quarkus.scheduler.Scheduled;

/** Certificate blocks and chain-cache purges: database rows that every replica reads (README, Decisions). */
@ApplicationScoped
@Startup
public class CertificateBlocks {
    private static final Logger LOG = Logger.getLogger(CertificateBlocks.class);

    public record Block(
            @Schema(example = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08") String sha256Fingerprint,
            @Schema(example = "private key leaked") String reason,
            @Schema(example = "2026-11-25T10:00:00Z") Instant blockedAt) {
        static Block of(BlockedCertificate b) {
            return new Block(b.sha256Fingerprint, b.reason, b.blockedAt);
        }
    }

    private final ManagementRequestVerifier verifier;
    private final Clock clock;
    private final MeterRegistry metrics;
    private volatile Set<String> blocked;
    private long lastPurge;
    /**
     * Ids below the newest purge read that were not there yet: an id is taken at insert and seen at commit, so two
     * purges committed out of order leave the older one behind the newest (PostgreSQL). They are read again until
     * {@link #GAP_WAIT} has passed; an id never committed (a rolled-back insert) stays a gap for ever.
     */
    private final Map<Long, Instant> gaps = new HashMap<>();
    private static final Duration GAP_WAIT = Duration.ofMinutes(2);
    private static final int MAX_GAPS = 1000;

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

    /** Fingerprints are not cached: a SHA-256 costs a few microseconds against the signature check's tens. */
    public void check(ValidatedChain chain) {
        Set<String> now = blocked;
        if (now.isEmpty()) {
            return;
        }
        for (X509Certificate c : chain.withAnchor()) { // the root too: the path itself ends below it
            String fingerprint = Fingerprints.sha256(c);
            if (now.contains(fingerprint)) {
                metrics.counter("management.signed.rejections", "code", "CERT_BLOCKED").increment();
                throw new ApiException(400, "CERT_BLOCKED", "The certificate " + c.getSubjectX500Principal().getName()
                        + " (SHA-256 " + fingerprint + ") in the signing chain is blocked by the platform operator;"
                        + " sign with a newly issued certificate");
            }
        }
    }

    /** Blocking a certificate again keeps the first reason. */
    @Transactional
    public Block block(String fingerprint, String reason) {
        String fp = normalise(fingerprint);
        // A concurrent block of the same certificate waits for the other and then inserts nothing: the first reason
        // stays, and a lost race is not a failed insert in the log.
        BlockedCertificate.getEntityManager().createNativeQuery("insert into blocked_certificate (sha256_fingerprint,"
                + " reason, blocked_at) values (?1, ?2, ?3) on conflict (sha256_fingerprint) do nothing")
                .setParameter(1, fp).setParameter(2, reason)
                .setParameter(3, clock.instant().truncatedTo(ChronoUnit.MICROS))
                .executeUpdate();
        BlockedCertificate b = BlockedCertificate.findById(fp);
        blocked = fingerprints();
        return Block.of(b);
    }

    /** False when the certificate was not blocked. */
    @Transactional
    public boolean unblock(String fingerprint) {
        boolean removed = BlockedCertificate.deleteById(normalise(fingerprint));
        blocked = fingerprints();
        return removed;
    }

    @Transactional
    public List<Block> list() {
        return BlockedCertificate.<BlockedCertificate>listAll().stream().map(Block::of).toList();
    }

    /** Drops the cached chains of one account (null: of all) on every replica. */
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
    @Scheduled(every = "${management.blocks.refresh}", delayed = "${management.blocks.refresh}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    synchronized void refresh() {
        try {
            QuarkusTransaction.requiringNew().run(() -> {
                blocked = fingerprints();
                Instant now = clock.instant();
                gaps.values().removeIf(since -> since.plus(GAP_WAIT).isBefore(now));
                List<ChainPurge> fresh = gaps.isEmpty()
                        ? ChainPurge.list("id > ?1 order by id", lastPurge)
                        : ChainPurge.list("id > ?1 or id in ?2 order by id", lastPurge, gaps.keySet());
                for (ChainPurge p : fresh) {
                    verifier.purge(p.fqdn);
                    gaps.remove(p.id);
                    for (long id = lastPurge + 1; id < p.id && gaps.size() < MAX_GAPS; id++) {
                        gaps.put(id, now);
                    }
                    lastPurge = Math.max(lastPurge, p.id);
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

    private static String normalise(String fingerprint) {
        String fp = fingerprint == null ? "" : fingerprint.replace(":", "").toLowerCase(Locale.ROOT);
        if (!fp.matches("[0-9a-f]{64}")) {
            throw new ApiException(400, "INVALID_FINGERPRINT", "A certificate is named by the SHA-256 of its DER"
                    + " encoding: 64 hexadecimal digits, colons allowed (openssl x509 -noout -fingerprint -sha256)");
        }
        return fp;
    }
}
