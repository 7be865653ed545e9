package com.convplatform.management.revocation;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;

import com.convplatform.api.management.ManagementInternal.RevocationList;
import com.convplatform.api.management.ManagementInternal.Revoked;
import com.convplatform.management.account.AccountService;
import com.convplatform.management.config.ManagementConfig;

/**
 * The revocation list that the services holding tokens poll (README, Revocation): every account, client and
 * certificate disabled, blocked or revoked whose tokens may still be within their lifetime.
 */
@ApplicationScoped
public class Revocations {
    /** Tokens are listed this much longer than their lifetime, for the clocks of the replicas and the pollers. */
    static final Duration CLOCK_MARGIN = Duration.ofSeconds(60);

    private final DataSource dataSource;
    private final Clock clock;
    private final ManagementConfig config;

    public Revocations(DataSource dataSource, Clock clock, ManagementConfig config) {
        this.dataSource = dataSource;
        this.clock = clock;
        this.config = config;
    }

    public RevocationList list() {
        Instant asOf = clock.instant();
        // A token issued before T expires by T + lifetime: entries older than that can match no live token.
        OffsetDateTime horizon = OffsetDateTime.ofInstant(asOf.minus(config.jwt().lifetime()).minus(CLOCK_MARGIN),
                ZoneOffset.UTC);
        Map<String, Revoked> out = new LinkedHashMap<>();
        try (Connection c = dataSource.getConnection()) {
            read(c, "select id, tokens_issued_before, disabled_at is not null from account"
                    + " where tokens_issued_before > ? order by id", horizon, "account", out);
            read(c, "select id, tokens_issued_before, disabled_at is not null from client"
                    + " where tokens_issued_before > ? order by id", horizon, "client", out);
            read(c, "select sha256_fingerprint, blocked_at, true from blocked_certificate where blocked_at > ?"
                    + " order by sha256_fingerprint", horizon, "certificate", out);
            read(c, "select sha256_fingerprint, revoked_at, true from registered_certificate where revoked_at > ?"
                    + " order by sha256_fingerprint", horizon, "certificate", out);
        } catch (SQLException e) {
            throw new IllegalStateException("Reading the revocation list failed", e);
        }
        return new RevocationList(asOf, new ArrayList<>(out.values()));
    }

    /** Certificate rows (a block, a revocation) are the whole second after it; account and client rows are so already. */
    private static void read(Connection c, String sql, OffsetDateTime horizon, String kind, Map<String, Revoked> out)
            throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            s.setObject(1, horizon);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    String id = r.getString(1);
                    Instant before = r.getObject(2, OffsetDateTime.class).toInstant();
                    if (kind.equals("certificate")) {
                        before = AccountService.nextSecond(before);
                    }
                    boolean disabled = r.getBoolean(3);
                    out.merge(kind + " " + id, new Revoked(kind, id, before, disabled),
                            (a, b) -> new Revoked(kind, id, a.tokensIssuedBefore().isAfter(b.tokensIssuedBefore())
                                    ? a.tokensIssuedBefore()
                                    : b.tokensIssuedBefore(), a.disabled() || b.disabled()));
                }
            }
        }
    }
}
