package com.convplatform.management.block;

import java.security.cert.X509Certificate;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import com.convplatform.crypto.chain.ValidatedChain;
import com.convplatform.crypto.management.ManagementRequestVerifier;
import com.convplatform.management.account.AccountService;
import com.convplatform.support.ApiException;

import io.micrometer.core.instrument.MeterRegistry;
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

    private final DataSource dataSource;
    private final ManagementRequestVerifier verifier;
    private final Clock clock;
    private final MeterRegistry metrics;
    private volatile Set<String> blocked = Set.of();
    private long lastPurge;

    public CertificateBlocks(DataSource dataSource, ManagementRequestVerifier verifier, Clock clock,
            MeterRegistry metrics) {
        this.dataSource = dataSource;
        this.verifier = verifier;
        this.clock = clock;
        this.metrics = metrics;
        // Earlier purges do not concern a replica that starts with an empty cache.
        this.lastPurge = query("select coalesce(max(id), 0) from chain_purge", r -> r.getLong(1)).get(0);
        this.blocked = Set.copyOf(query("select sha256_fingerprint from blocked_certificate", r -> r.getString(1)));
    }

    /** Refuses a verified chain that holds a blocked certificate (400 CERT_BLOCKED). */
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
    public Block block(String fingerprint, String reason) {
        String fp = normalise(fingerprint);
        Instant at = clock.instant();
        if (query("select 1 from blocked_certificate where sha256_fingerprint = ?", r -> 1, fp).isEmpty()) {
            try {
                update("insert into blocked_certificate (sha256_fingerprint, reason, blocked_at) values (?, ?, ?)", fp,
                        reason, Timestamp.from(at));
            } catch (IllegalStateException e) {
                // blocked through another replica in the meantime: its row stands
                if (!(e.getCause() instanceof SQLException sql) || !"23505".equals(sql.getSQLState())) {
                    throw e;
                }
            }
        }
        refresh();
        return list().stream().filter(b -> b.sha256Fingerprint().equals(fp)).findFirst().orElseThrow();
    }

    /** Lifts a block; false when the certificate was not blocked. */
    public boolean unblock(String fingerprint) {
        boolean removed = update("delete from blocked_certificate where sha256_fingerprint = ?",
                normalise(fingerprint)) > 0;
        refresh();
        return removed;
    }

    public List<Block> list() {
        return query("select sha256_fingerprint, reason, blocked_at from blocked_certificate order by blocked_at",
                r -> new Block(r.getString(1), r.getString(2), r.getTimestamp(3).toInstant()));
    }

    /** Drops the cached chains of one account (null: of all accounts) on every replica. */
    public void purge(String fqdn) {
        update("insert into chain_purge (fqdn, requested_at) values (?, ?)",
                fqdn == null ? null : fqdn.toLowerCase(Locale.ROOT), Timestamp.from(clock.instant()));
        refresh();
    }

    /** Reads the blocks and the purges recorded since the last read (through any replica). */
    @Scheduled(every = "${management.blocks.refresh}", delayed = "${management.blocks.refresh}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    synchronized void refresh() {
        try {
            blocked = Set.copyOf(new HashSet<>(query("select sha256_fingerprint from blocked_certificate",
                    r -> r.getString(1))));
            for (Purge p : query("select id, fqdn from chain_purge where id > ? order by id",
                    r -> new Purge(r.getLong(1), r.getString(2)), lastPurge)) {
                verifier.purge(p.fqdn());
                lastPurge = p.id();
                LOG.infof("Purged the cached certificate chains of %s", p.fqdn() == null ? "every account" : p.fqdn());
            }
        } catch (IllegalStateException e) {
            metrics.counter("management.blocks.refresh.failures").increment();
            LOG.warnf("Reading the certificate blocks and chain purges failed (the %d blocks read last stay in"
                    + " force): %s", blocked.size(), e.getCause() == null ? e.getMessage() : e.getCause().getMessage());
        }
    }

    private record Purge(long id, String fqdn) {
    }

    private static String normalise(String fingerprint) {
        String fp = fingerprint == null ? "" : fingerprint.replace(":", "").toLowerCase(Locale.ROOT);
        if (!fp.matches("[0-9a-f]{64}")) {
            throw new ApiException(400, "INVALID_FINGERPRINT", "A certificate is named by the SHA-256 of its DER"
                    + " encoding: 64 hexadecimal digits, colons allowed (openssl x509 -noout -fingerprint -sha256)");
        }
        return fp;
    }

    @FunctionalInterface
    private interface Row<T> {
        T read(ResultSet r) throws SQLException;
    }

    private <T> List<T> query(String sql, Row<T> row, Object... parameters) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement q = prepare(c, sql, parameters);
                ResultSet r = q.executeQuery()) {
            List<T> out = new ArrayList<>();
            while (r.next()) {
                out.add(row.read(r));
            }
            return out;
        } catch (SQLException e) {
            throw new IllegalStateException("Reading the certificate blocks failed", e);
        }
    }

    private int update(String sql, Object... parameters) {
        try (Connection c = dataSource.getConnection(); PreparedStatement q = prepare(c, sql, parameters)) {
            return q.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("Writing the certificate blocks failed", e);
        }
    }

    private static PreparedStatement prepare(Connection c, String sql, Object... parameters) throws SQLException {
        PreparedStatement q = c.prepareStatement(sql);
        for (int i = 0; i < parameters.length; i++) {
            if (parameters[i] == null) {
                q.setNull(i + 1, Types.VARCHAR);
            } else {
                q.setObject(i + 1, parameters[i]);
            }
        }
        return q;
    }
}
