package com.convplatform.crypto.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

import javax.sql.DataSource;

/**
 * Makes a race between two writers certain, for the services' tests: one row is inserted and held uncommitted in a
 * transaction of the test's own while the request under test runs. A request that writes the same unique key waits
 * for that row; the row is committed only once the database shows the request writing to its table (H2 or PostgreSQL, read
 * over a connection of its own outside the service's pool), so the test proves the race rather than a slow request.
 */
public final class HeldRow {
    private HeldRow() {
    }

    /**
     * Runs {@code request} while {@code insert} (with its {@code values}) is held, commits, returns the answer;
     * {@code describe} tells an answer that came without waiting.
     */
    public static <T> T whileInserting(DataSource dataSource, String insert, Object[] values, Supplier<T> request,
            Function<T, String> describe) throws Exception {
        try (Connection c = dataSource.getConnection()) {
            boolean h2 = c.getMetaData().getDatabaseProductName().startsWith("H2");
            String holder;
            try (PreparedStatement q = c.prepareStatement(h2 ? "select session_id()" : "select pg_backend_pid()");
                    ResultSet r = q.executeQuery()) {
                r.next();
                holder = r.getString(1);
            }
            c.setAutoCommit(false);
            try (PreparedStatement s = c.prepareStatement(insert)) {
                for (int i = 0; i < values.length; i++) {
                    s.setObject(i + 1, values[i]);
                }
                assertEquals(1, s.executeUpdate());
            }
            CompletableFuture<T> answer;
            try (Connection probe = dataSource.getConnection()) {
                answer = CompletableFuture.supplyAsync(request);
                // H2 shows a write waiting on a primary key as blocked, and one on another unique key as running
                String table = insert.split("\\s+")[2];
                String waiting = h2
                        ? "select count(*) from information_schema.sessions where blocker_id = " + holder
                                + " or executing_statement like 'insert into " + table + " %'"
                        : "select count(*) from pg_stat_activity where " + holder + " = any(pg_blocking_pids(pid))";
                Await.until(Duration.ofSeconds(15), () -> answer.isDone() || count(probe, waiting) > 0,
                        "the request to wait for the row held");
                assertFalse(answer.isDone(),
                        () -> "the request did not wait for the row held: " + describe.apply(answer.join()));
            }
            c.commit();
            return answer.get(20, TimeUnit.SECONDS);
        }
    }

    private static int count(Connection probe, String query) {
        try (PreparedStatement q = probe.prepareStatement(query); ResultSet r = q.executeQuery()) {
            return r.next() ? r.getInt(1) : 0;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
