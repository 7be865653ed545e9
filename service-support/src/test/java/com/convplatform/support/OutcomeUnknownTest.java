package com.convplatform.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.convplatform.testsupport.PostgresTestResource;

/**
 * A commit whose connection is lost after the database committed: the batch is not written again item by item (which
 * wrote every row twice), and every caller learns that the outcome is unknown. A connection whose commit commits and
 * then fails as a lost connection does (SQLState 08006) stands in for the network.
 */
class OutcomeUnknownTest {
    private static PostgresTestResource.Database db;
    private static DataSource real;

    @BeforeAll
    static void database() throws Exception {
        db = PostgresTestResource.create("outcome_unknown");
        real = db.dataSource();
        try (Connection c = real.getConnection(); Statement s = c.createStatement()) {
            s.execute("create table item (name text not null)");
        }
    }

    @AfterAll
    static void drop() {
        PostgresTestResource.drop(db);
    }

    /** What a connection's commit does before it fails. */
    private interface Commit {
        void run(Connection c) throws SQLException;
    }

    /** Connections whose commit does {@code commit} on the real connection, then fails with {@code failure}. */
    private static DataSource commitThenFail(Commit commit, SQLException failure) {
        ClassLoader loader = OutcomeUnknownTest.class.getClassLoader();
        return (DataSource) Proxy.newProxyInstance(loader, new Class<?>[]{DataSource.class}, (ds, method, args) -> {
            Object out = method.invoke(real, args);
            if (!(out instanceof Connection c)) {
                return out;
            }
            return Proxy.newProxyInstance(loader, new Class<?>[]{Connection.class}, (conn, m, a) -> {
                if (!m.getName().equals("commit")) {
                    return m.invoke(c, a);
                }
                commit.run(c);
                throw failure;
            });
        });
    }

    @Test
    void aBatchWhoseCommitMayHaveHappenedIsNotWrittenAgain() throws Exception {
        // the commit happens, then the answer is lost as a dropped connection loses it
        DataSource lossy = commitThenFail(Connection::commit,
                new SQLException("An I/O error occurred while sending to the backend.", "08006"));
        CountDownLatch first = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (GroupCommit<String, Void> writer = GroupCommit.ofWrites("test-writer", 64, names -> {
            if (names.contains("hold")) { // the first batch holds the writer, so that the next three queue together
                first.countDown();
                await(release);
                return;
            }
            LocalTransaction.run(lossy, "Writing items", c -> {
                for (String name : names) {
                    c.createStatement().execute("insert into item values ('" + name + "')");
                }
                return null;
            });
        })) {
            CompletableFuture<Void> hold = writer.queue("hold");
            await(first);
            List<CompletableFuture<Void>> three = writer.submitAll(List.of("a", "b", "c"));
            release.countDown();
            hold.get(30, TimeUnit.SECONDS);
            for (CompletableFuture<Void> f : three) {
                ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(30, TimeUnit.SECONDS));
                assertInstanceOf(LocalTransaction.OutcomeUnknown.class, e.getCause());
            }
        }
        assertEquals(3, rows(), "each item once: the batch committed, and was not written again");
    }

    @Test
    void aCommitThatFailsForAnotherReasonIsAnOrdinaryFailure() {
        DataSource refusing = commitThenFail(Connection::rollback,
                new SQLException("could not serialize access", "40001"));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> LocalTransaction.run(refusing, "Writing", c -> c.createStatement().execute("select 1")));
        assertEquals("Writing failed", e.getMessage());
    }

    private static long rows() throws SQLException {
        try (Connection c = real.getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("select count(*) from item")) {
            r.next();
            return r.getLong(1);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("not reached in 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
