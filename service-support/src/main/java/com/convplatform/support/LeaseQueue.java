package com.convplatform.support;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import org.jboss.logging.Logger;

/**
 * The lease engine of the platform's queues on PostgreSQL (hook-service's deliveries, upload-service's hand-off
 * outbox): a small table that holds only unfinished work, each row claimed by one replica at a time under a lease.
 * <p>
 * The table has a {@code uuid} primary key {@code id}, {@code next_attempt_at}, {@code lease_owner} and
 * {@code lease_until}, and an index on {@code next_attempt_at} (partial, {@code where <ready>}, when some rows must
 * never be claimed). A claim takes the earliest due rows whose lease is free, {@code FOR UPDATE SKIP LOCKED} (replicas
 * claiming at once skip each other's rows, never wait), and sets their lease. Two rules keep its cost flat:
 * <ul>
 * <li>The plan cannot depend on the planner's statistics: for the claim's transaction, sequential and bitmap scans and
 * sorts are switched off, so the only plan left is the due index read in order, stopped at the batch (measured: the
 * same 0.1 ms with 100 or 1,000,000 rows due, statistics never gathered).</li>
 * <li>A lease changes no indexed column: the row stays where it is in the due index, its update is HOT (given room on
 * the page: the tables' fillfactor), and the next claims step over the few leased rows at the head of the index (at
 * most the rows in flight) rather than over index entries left behind by moved rows.</li>
 * </ul>
 * Finished rows are deleted by their service; {@link #vacuum} reclaims their space between autovacuum's passes.
 */
public final class LeaseQueue {
    private static final Logger LOG = Logger.getLogger(LeaseQueue.class);
    /**
     * Only the due index, in order, for the rest of the transaction; and each statement's generic plan, made once per
     * connection, not a plan made again at each execution for its values: the index plans left are the same for any
     * values, and a partitioned table's partitions are pruned as the statement starts.
     */
    private static final String PLAN_GUARD = "select set_config('enable_seqscan', 'off', true),"
            + " set_config('enable_bitmapscan', 'off', true), set_config('enable_sort', 'off', true),"
            + " set_config('plan_cache_mode', 'force_generic_plan', true)";

    /** Maps one claimed row (the columns named as {@code returning}, in order). */
    public interface Rows<T> {
        T map(ResultSet r, String owner, Instant leaseUntil) throws SQLException;
    }

    private final String table;
    private final String claim;
    private final String guardedClaim;
    private final String release;
    private final String releaseAll;
    private final String remove;
    private final String guardedRemove;
    private final String replica = UUID.randomUUID().toString();
    private final AtomicLong claims = new AtomicLong();

    /**
     * @param table the queue table
     * @param ready the due index's predicate ({@code "true"} when every row may be claimed)
     * @param returning the columns each claim returns, for {@link Rows}
     */
    public LeaseQueue(String table, String ready, String returning) {
        this.table = table;
        this.claim = "with due as (select id from " + table + " where " + ready + " and next_attempt_at <= ? and"
                + " (lease_until is null or lease_until <= ?) order by next_attempt_at limit ? for update skip locked)"
                + " update " + table + " t set lease_owner = ?, lease_until = ? from due where t.id = due.id"
                + " returning " + returning;
        this.guardedClaim = guarded(claim);
        this.release = "update " + table
                + " set lease_owner = null, lease_until = null where id = ? and lease_owner = ?";
        this.releaseAll = "update " + table + " set lease_owner = null, lease_until = null where id = any(?)"
                + " and lease_owner like ?";
        this.remove = "delete from " + table + " where id = any(?)";
        this.guardedRemove = guarded(remove);
    }

    /** The claim's statement (for its plan: the tests and the benchmark read it with EXPLAIN). */
    public String claimStatement() {
        return claim;
    }

    /** This process's part of every lease owner it writes ({@code <replica>:<claim number>}). */
    public String replica() {
        return replica;
    }

    /** A lease owner of this replica for rows written already claimed (outside {@link #claim}). */
    public String owner() {
        return replica + ":" + claims.incrementAndGet();
    }

    /**
     * Claims up to {@code max} rows due at {@code now} under a lease until {@code until}, in the caller's transaction
     * (the plan guard, sent with the claim, holds for the rest of it); the rows, mapped.
     */
    public <T> List<T> claim(Connection c, Instant now, Instant until, int max, Rows<T> rows) throws SQLException {
        String owner = owner();
        OffsetDateTime at = utc(now);
        OffsetDateTime end = utc(until);
        List<T> out = new ArrayList<>(max);
        try (PreparedStatement s = c.prepareStatement(guardedClaim)) {
            LocalTransaction.bind(s, at, at, max, owner, end);
            try (ResultSet r = guardedQuery(s)) {
                while (r.next()) {
                    out.add(rows.map(r, owner, until));
                }
            }
        }
        return out;
    }

    /**
     * Leaves the planner only index plans for the rest of the caller's transaction (sequential and bitmap scans and
     * sorts off): for statements that must read by their index whatever the statistics say (a claim; intake's look-up
     * of an event by its key in a table whose statistics lag its growth).
     */
    public static void guardPlans(Connection c) throws SQLException {
        try (Statement guard = c.createStatement()) {
            guard.execute(PLAN_GUARD);
        }
    }

    /**
     * {@code sql} behind the plan guard, as one string: the driver sends a string of several statements to the server
     * as one pipeline, so the guard costs no round trip of its own (PlanGuardBenchmarkTest: a claim transaction cost
     * its backend 340-390 µs of CPU with the guard sent with it, 370-545 µs with the guard a statement of its own), and
     * it holds for {@code sql}'s plan (made when it is bound, after the guard ran) and the rest of the transaction. Set per transaction, it holds behind a pooler in transaction mode
     * too, where a setting made once per connection would not. Run it with {@link #guardedQuery} or
     * {@link #guardedUpdate}; its parameters are numbered as in {@code sql}.
     */
    public static String guarded(String sql) {
        return PLAN_GUARD + "; " + sql;
    }

    /** Runs a {@link #guarded} statement that returns rows; its rows. */
    public static ResultSet guardedQuery(PreparedStatement s) throws SQLException {
        s.execute(); // the guard's row, closed by the next call
        if (!s.getMoreResults()) {
            throw new SQLException("The statement behind the plan guard returned no rows");
        }
        return s.getResultSet();
    }

    /** Runs a {@link #guarded} statement that changes rows and returns none; how many it changed. */
    public static int guardedUpdate(PreparedStatement s) throws SQLException {
        s.execute();
        if (s.getMoreResults()) {
            throw new SQLException("The statement behind the plan guard returned rows");
        }
        return s.getUpdateCount();
    }

    /**
     * Deletes finished rows by their keys, under the plan guard: a table that is emptied and refilled all day has
     * statistics of any size, and with {@code relpages} 0 from a vacuum that found it empty the planner read the
     * whole table for each delete (measured in upload-service's load test: 1,200 sequential scans a second, PostgreSQL's
     * CPU per upload up from 0.25 to 0.71 ms within two minutes). How many rows went.
     */
    public int remove(Connection c, Collection<UUID> ids) throws SQLException {
        if (ids.isEmpty()) {
            return 0;
        }
        try (PreparedStatement s = c.prepareStatement(guardedRemove)) {
            s.setArray(1, c.createArrayOf("uuid", ids.toArray()));
            return guardedUpdate(s);
        }
    }

    /** The statement of {@link #remove} (for its plan). */
    public String removeStatement() {
        return remove;
    }

    /** Hands one claimed row back untouched (it stays due when it was); false if another claim owns it by now. */
    public boolean release(Connection c, UUID id, String owner) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(release)) {
            return LocalTransaction.bind(s, id, owner).executeUpdate() == 1;
        }
    }

    /** Hands back every row of {@code ids} still leased by this replica (on shutdown); how many. */
    public int releaseAll(DataSource dataSource, Collection<UUID> ids) {
        if (ids.isEmpty()) {
            return 0;
        }
        return LocalTransaction.run(dataSource, "Handing back the leases of this replica on " + table, c -> {
            try (PreparedStatement s = c.prepareStatement(releaseAll)) {
                s.setArray(1, c.createArrayOf("uuid", ids.toArray()));
                s.setString(2, replica + ":%");
                return s.executeUpdate();
            }
        });
    }

    /**
     * Hands back every row this replica still leases, found by reading the whole table: for a table that holds little
     * (an outbox of what waits), once, at shutdown; how many.
     */
    public int releaseOwned(DataSource dataSource, Instant now) {
        return LocalTransaction.run(dataSource, "Handing back the leases of this replica on " + table, c -> {
            try (PreparedStatement s = c.prepareStatement("update " + table + " set lease_owner = null, lease_until ="
                    + " null where lease_owner like ? and lease_until > ?")) {
                return LocalTransaction.bind(s, replica + ":%", utc(now)).executeUpdate();
            }
        });
    }

    /**
     * Reclaims the space of the deleted rows (a plain {@code VACUUM}, no statistics gathered), unless another replica
     * is at it: the queue churns, and without it every insert extends the table and every claim steps over the index
     * entries of rows long gone. Autovacuum does the same where it runs; this keeps the cost flat where it lags or is
     * off. Returns whether it ran.
     */
    public boolean vacuum(DataSource dataSource) {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            long key = ("vacuum:" + table).hashCode();
            try (ResultSet r = s.executeQuery("select pg_try_advisory_lock(" + key + ")")) {
                if (!r.next() || !r.getBoolean(1)) {
                    return false;
                }
            }
            try {
                s.execute("vacuum " + table);
                return true;
            } finally {
                s.execute("select pg_advisory_unlock(" + key + ")");
            }
        } catch (SQLException e) {
            LOG.warnf("Vacuuming %s failed (%s); autovacuum or the next pass reclaims its space", table,
                    e.getMessage());
            return false;
        }
    }

    static OffsetDateTime utc(Instant t) {
        return OffsetDateTime.ofInstant(t, ZoneOffset.UTC);
    }
}
