package com.convplatform.management.token;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;

import com.convplatform.support.LocalTransaction;

/** Table jwt_signing_key: when the platform first signed with each key. */
@ApplicationScoped
class SigningKeyRepository {
    private static final String RECORD_KEY = "insert into jwt_signing_key (kid, first_used_at) select ?, ?"
            + " where not exists (select 1 from jwt_signing_key where kid = ?)";
    private static final String KEY_DATE = "select first_used_at from jwt_signing_key where kid = ?";

    private final DataSource dataSource;

    SigningKeyRepository(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** Records {@code first} for the key unless a replica did before; the date recorded. */
    Instant firstUse(String kid, OffsetDateTime first) {
        return LocalTransaction.run(dataSource, "Recording when the JWT signing key was first used", c -> {
            try (PreparedStatement insert = c.prepareStatement(RECORD_KEY)) {
                insert.setString(1, kid);
                insert.setObject(2, first);
                insert.setString(3, kid);
                insert.executeUpdate();
            } catch (SQLException e) {
                // another replica recorded it at the same moment (the key id is unique): its date stands
                c.rollback();
            }
            try (PreparedStatement select = c.prepareStatement(KEY_DATE)) {
                select.setString(1, kid);
                try (ResultSet r = select.executeQuery()) {
                    r.next();
                    return r.getObject(1, OffsetDateTime.class).toInstant();
                }
            }
        });
    }
}
