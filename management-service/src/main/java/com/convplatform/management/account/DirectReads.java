package com.convplatform.management.account;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;

import com.convplatform.management.account.AccountViews.ClientView;
import com.convplatform.support.SqlExists;
import com.convplatform.support.Workers;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * What a signed request reads in plain JDBC, past Hibernate's session: an account's SHA-256 requirement, a
 * certificate's revocation and an account's clients (the client enumeration of spec 4.2). Held in memory while the
 * {@link ChangeFeed} listens and dropped at every change it hears, so that a change made through any replica applies
 * within milliseconds, and at once on the replica that made it; read from the database on every call while it does
 * not listen.
 */
@ApplicationScoped
// Caffeine builds the weighed cache below as its class SSMW, by name: quarkus-caffeine registers the constructors of
// the classes the framework's own caches use, and not this one.
@RegisterForReflection(classNames = "com.github.benmanes.caffeine.cache.SSMW")
class DirectReads {
    private final DataSource dataSource;
    private final ChangeFeed changes;
    private final Cache<String, Boolean> sha256 = Caffeine.newBuilder().maximumSize(AccountService.CACHED).build();
    private final Cache<String, Boolean> active = Caffeine.newBuilder().maximumSize(AccountService.CACHED).build();
    /** Bounded by the clients held, not the accounts: an account may have many. */
    private final Cache<String, List<ClientView>> clients = Caffeine.newBuilder()
            .maximumWeight(10L * AccountService.CACHED).<String, List<ClientView>>weigher((k, v) -> 1 + v.size())
            .build();

    private static final String SETTINGS = "reading an account's settings";

    DirectReads(DataSource dataSource, ChangeFeed changes) {
        this.dataSource = dataSource;
        this.changes = changes;
        changes.onChange(() -> {
            sha256.invalidateAll();
            active.invalidateAll();
            clients.invalidateAll();
        });
    }

    boolean requiresSha256(String accountId) {
        return read(sha256, accountId, SETTINGS, () -> SqlExists.exists(dataSource, "the account's SHA-256 requirement",
                "select 1 from account where id = ? and require_sha256 = true", accountId));
    }

    boolean certificateActive(String certificateUuid, String accountId) {
        return read(active, certificateUuid + '\n' + accountId, SETTINGS, () -> SqlExists.exists(dataSource,
                "the certificate's revocation",
                "select 1 from registered_certificate where id = ? and account_id = ? and revoked_at is null",
                certificateUuid, accountId));
    }

    /** The account's clients in the order they were added, in the shape of spec 4.2. */
    List<ClientView> clientsOf(String accountId) {
        return read(clients, accountId, "reading the account's clients", () -> {
            try (Connection c = dataSource.getConnection();
                    PreparedStatement q = c.prepareStatement("select id, name, created_at from client where"
                            + " account_id = ? order by created_at, id")) {
                q.setString(1, accountId);
                List<ClientView> found = new ArrayList<>();
                try (ResultSet r = q.executeQuery()) {
                    while (r.next()) {
                        found.add(new ClientView(r.getString(1), r.getString(2),
                                r.getObject(3, OffsetDateTime.class).toInstant(), null));
                    }
                }
                return List.copyOf(found);
            } catch (SQLException e) {
                throw new IllegalStateException("Reading the account's clients failed", e);
            }
        });
    }

    /** Kept only if the feed listened throughout the read and heard no change meanwhile. */
    private <V> V read(Cache<String, V> cache, String key, String step, Supplier<V> database) {
        V kept = changes.listening() ? cache.getIfPresent(key) : null;
        if (kept != null) {
            return kept;
        }
        Workers.requireBlockingAllowed(step);
        long generation = changes.generation();
        boolean listened = changes.listening();
        V value = database.get();
        if (listened && changes.generation() == generation) {
            cache.put(key, value);
            if (!changes.listening() || changes.generation() != generation) { // a change heard as it was put
                cache.invalidate(key);
            }
        }
        return value;
    }
}
