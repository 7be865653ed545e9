package com.convplatform.management.account;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;

import com.convplatform.support.SqlExists;

/**
 * Reads by primary key in plain JDBC on every call, past Hibernate's session and the lookup caches: a change made
 * through any replica applies at once.
 */
@ApplicationScoped
class DirectReads {
    private final DataSource dataSource;

    DirectReads(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    boolean requiresSha256(String accountId) {
        return SqlExists.exists(dataSource, "the account's SHA-256 requirement",
                "select 1 from account where id = ? and require_sha256 = true", accountId);
    }

    boolean certificateActive(String certificateUuid, String accountId) {
        return SqlExists.exists(dataSource, "the certificate's revocation",
                "select 1 from registered_certificate where id = ? and account_id = ? and revoked_at is null",
                certificateUuid, accountId);
    }
}
