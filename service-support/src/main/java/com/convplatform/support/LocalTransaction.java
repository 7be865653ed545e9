package com.convplatform.support;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

import javax.sql.DataSource;

/**
 * A local transaction on one pooled connection, for a hot path that writes plain JDBC and enlists nothing else: a JTA
 * transaction around such work (the {@code @Transactional} interceptor and the transaction manager's commit) cost a
 * good share of what the work itself cost. Auto-commit is switched off for the work and the pool restores it when the
 * connection is returned. Not for use inside a JTA transaction (the pool refuses to switch auto-commit there).
 */
public final class LocalTransaction {
    /** The work, on the transaction's connection. */
    public interface Work<R> {
        R run(Connection c) throws SQLException;
    }

    private LocalTransaction() {
    }

    /**
     * The connection was lost while the commit was on its way, or the database did not answer it within the commit
     * deadline ({@link GroupCommit}): the database may have committed or not. Whoever holds
     * the work must not write it again as if it had not been (it would be there twice), nor undo what it did outside
     * the database as if it had been rolled back.
     */
    public static final class OutcomeUnknown extends IllegalStateException {
        OutcomeUnknown(String what, SQLException cause) {
            super(what + ": the connection to the database was lost during the commit; it may have been committed",
                    cause);
        }

        OutcomeUnknown(String message) {
            super(message);
        }
    }

    /**
     * Runs {@code work} and commits; rolls back when it throws; a database failure names {@code what}. A commit that
     * fails because the connection was lost (SQLState class 08, or the server shutting the session) throws
     * {@link OutcomeUnknown}.
     */
    public static <R> R run(DataSource dataSource, String what, Work<R> work) {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                R result = work.run(c);
                try {
                    c.commit();
                } catch (SQLException e) {
                    String state = e.getSQLState();
                    if (state == null || state.startsWith("08") || state.startsWith("57P")) {
                        throw new OutcomeUnknown(what, e);
                    }
                    throw e;
                }
                return result;
            } catch (SQLException | RuntimeException e) {
                try {
                    c.rollback();
                } catch (SQLException rollbackFailed) {
                    e.addSuppressed(rollbackFailed); // the work's failure is the one to report
                }
                throw e;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(what + " failed", e);
        }
    }

    /** Sets the statement's parameters to {@code values}, in order (setObject: both databases take every type used). */
    public static PreparedStatement bind(PreparedStatement s, Object... values) throws SQLException {
        for (int i = 0; i < values.length; i++) {
            s.setObject(i + 1, values[i]);
        }
        return s;
    }
}
