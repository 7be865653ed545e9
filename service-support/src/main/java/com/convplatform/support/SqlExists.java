package com.convplatform.support;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

import javax.sql.DataSource;

/**
 * One existence check over plain JDBC, for lookups on a request's hot path where Hibernate's query machinery costs
 * more than the query itself.
 */
public final class SqlExists {
    private SqlExists() {
    }

    /** Whether {@code select} (one {@code ?} per parameter) returns a row; a failure names {@code what}. */
    public static boolean exists(DataSource dataSource, String what, String select, String... parameters) {
        try (Connection c = dataSource.getConnection(); PreparedStatement q = c.prepareStatement(select)) {
            for (int i = 0; i < parameters.length; i++) {
                q.setString(i + 1, parameters[i]);
            }
            try (ResultSet r = q.executeQuery()) {
                return r.next();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Reading " + what + " failed", e);
        }
    }
}
