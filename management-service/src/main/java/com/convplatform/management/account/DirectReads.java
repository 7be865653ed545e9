package com.convplatform.management.account;

import java.util.function.Supplier;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;

import com.convplatform.support.SqlExists;
import com.convplatform.support.Workers;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

/**
 * What a signed request reads by primary key in plain JDBC, past Hibernate's session: an account's SHA-256
 * requirement and a certificate's revocation. Held in memory while the {@link ChangeFeed} listens and dropped at
 * every change it hears, so that a change made through any replica applies within milliseconds, and at once on the
 * replica that made it; read from the database on every call while it does not listen.
 */
@ApplicationScoped
class DirectReads {
    private final DataSource dataSource;
    private final ChangeFeed changes;
    private final Cache<String, Boolean> sha256 = Caffeine.newBuilder().maximumSize(AccountService.CACHED).build();
    private final Cache<String, Boolean> active = Caffeine.newBuilder().maximumSize(AccountService.CACHED).build();

    DirectReads(DataSource dataSource, ChangeFeed changes) {
        this.dataSource = dataSource;
        this.changes = changes;
        changes.onChange(() -> {
            sha256.invalidateAll();
            active.invalidateAll();
        });
    }

    boolean requiresSha256(String accountId) {
        return read(sha256, accountId, () -> SqlExists.exists(dataSource, "the account's SHA-256 requirement",
                "select 1 from account where id = ? and require_sha256 = true", accountId));
    }

    boolean certificateActive(String certificateUuid, String accountId) {
        return read(active, certificateUuid + '\n' + accountId, () -> SqlExists.exists(dataSource,
                "the certificate's revocation",
                "select 1 from registered_certificate where id = ? and account_id = ? and revoked_at is null",
                certificateUuid, accountId));
    }

    /** Kept only if the feed listened throughout the read and heard no change meanwhile. */
    private boolean read(Cache<String, Boolean> cache, String key, Supplier<Boolean> database) {
        Boolean kept = changes.listening() ? cache.getIfPresent(key) : null;
        if (kept != null) {
            return kept;
        }
        Workers.requireBlockingAllowed("reading an account's settings");
        long generation = changes.generation();
        boolean listened = changes.listening();
        boolean value = database.get();
        if (listened && changes.generation() == generation) {
            cache.put(key, value);
            if (!changes.listening() || changes.generation() != generation) { // a change heard as it was put
                cache.invalidate(key);
            }
        }
        return value;
    }
}
