package com.convplatform.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import javax.sql.DataSource;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.convplatform.testsupport.PostgresTestResource;

/**
 * The lease engine on a real PostgreSQL, its table as the services make theirs: replicas claiming at once never take
 * the same row, a lease keeps a row from every other claim until it ends, rows held out of the due index are never
 * claimed, and the claim's plan is the due index read in order whatever the table holds and whatever the statistics
 * (never gathered here) say: with 100 rows or 200,000.
 */
class LeaseQueueTest {
    private static PostgresTestResource.Database db;
    private static DataSource dataSource;
    private static final LeaseQueue QUEUE = new LeaseQueue("work", "not held", "t.id, t.payload");

    @BeforeAll
    static void database() throws Exception {
        db = PostgresTestResource.create("lease_queue");
        dataSource = db.dataSource();
        try (Connection c = dataSource.getConnection()) {
            c.createStatement().execute("create table work (id uuid primary key, payload text not null, held boolean"
                    + " not null default false, next_attempt_at timestamptz not null, lease_owner varchar(64),"
                    + " lease_until timestamptz) with (fillfactor = 70)");
            c.createStatement().execute("create index work_due_idx on work (next_attempt_at) where not held");
        }
    }

    @AfterAll
    static void drop() {
        PostgresTestResource.drop(db);
    }

    private static void fill(int rows, boolean held) throws Exception {
        try (Connection c = dataSource.getConnection()) {
            c.createStatement()
                    .execute("insert into work (id, payload, held, next_attempt_at) select gen_random_uuid(),"
                            + " 'row ' || i, " + held + ", now() - interval '1 hour' + i * interval '1 ms' from"
                            + " generate_series(1, " + rows + ") i");
        }
    }

    /** The plan of {@code statement} as the lease engine sends it: behind the plan guard, in one round trip. */
    private static String plan(String statement, Binder binder) throws Exception {
        return plan(LeaseQueue.guarded("explain (costs off) " + statement), binder, true);
    }

    private static String plan(String sql, Binder binder, boolean guarded) throws Exception {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement s = c.prepareStatement(sql)) {
                binder.bind(c, s);
                String plan = lines(guarded ? LeaseQueue.guardedQuery(s) : s.executeQuery());
                c.rollback();
                return plan.replaceAll("'[^']*'", "?"); // the time bound, not the plan
            }
        }
    }

    private interface Binder {
        void bind(Connection c, PreparedStatement s) throws Exception;
    }

    private static String claimPlan() throws Exception {
        return plan(QUEUE.claimStatement(), (c, s) -> {
            OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
            LocalTransaction.bind(s, now, now, 32, "x:1", now.plusMinutes(1));
        });
    }

    @Test
    void theClaimReadsTheDueIndexInOrderWith100RowsOr200000AndNoStatistics() throws Exception {
        try (Connection c = dataSource.getConnection()) {
            c.createStatement().execute("truncate work");
        }
        fill(100, false);
        String small = claimPlan();
        fill(200_000, false);
        fill(50_000, true);
        String large = claimPlan();
        for (String plan : List.of(small, large)) {
            assertTrue(plan.contains("Index Scan using work_due_idx on work"), plan);
            assertFalse(plan.contains("Seq Scan") || plan.contains("Sort") || plan.contains("Bitmap"), plan);
        }
        assertEquals(small, large, "the same plan whatever the table holds");
    }

    /**
     * Behind the guard a statement's plan is its generic one, made once per connection for any values (its parameters
     * stay {@code $1} in the plan); outside it, PostgreSQL plans the first executions again for their values.
     */
    @Test
    void behindTheGuardAStatementIsPlannedOnceForAnyValuesAndOnlyForThatTransaction() throws Exception {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("prepare due(timestamptz) as select id from work where next_attempt_at <= $1 and not held"
                    + " order by next_attempt_at limit 1");
            c.setAutoCommit(false);
            LeaseQueue.guardPlans(c);
            assertEquals("force_generic_plan", setting(s, "plan_cache_mode"));
            String guarded = lines(s.executeQuery("explain (costs off) execute due(now())"));
            assertTrue(guarded.contains("$1") && guarded.contains("Index Scan using work_due_idx"), guarded);
            c.commit();
            assertEquals("auto", setting(s, "plan_cache_mode"), "the guard ends with its transaction");
            String unguarded = lines(s.executeQuery("explain (costs off) execute due(now())"));
            assertFalse(unguarded.contains("$1"), "planned for the value: " + unguarded);
            c.commit();
        }
    }

    private static String setting(Statement s, String name) throws Exception {
        try (ResultSet r = s.executeQuery("select current_setting('" + name + "')")) {
            r.next();
            return r.getString(1);
        }
    }

    /** The first column of every row, a line each; closes the rows. */
    private static String lines(ResultSet rows) throws Exception {
        StringBuilder out = new StringBuilder();
        try (ResultSet r = rows) {
            while (r.next()) {
                out.append(r.getString(1)).append('\n');
            }
        }
        return out.toString();
    }

    /**
     * A vacuum that found the queue empty leaves statistics of an empty table ({@code relpages} 0); refilled, the delete
     * of finished rows still goes by the primary key, and removes exactly the rows named.
     */
    @Test
    void finishedRowsAreRemovedByTheKeyAfterAVacuumFoundTheTableEmpty() throws Exception {
        try (Connection c = dataSource.getConnection()) {
            c.createStatement().execute("truncate work");
            c.createStatement().execute("vacuum work");
        }
        fill(5_000, false);
        List<UUID> ids = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                ResultSet r = c.createStatement().executeQuery("select id from work limit 40")) {
            while (r.next()) {
                ids.add(r.getObject(1, UUID.class));
            }
        }
        Binder named = (c, s) -> s.setArray(1, c.createArrayOf("uuid", ids.toArray()));
        String plan = plan(QUEUE.removeStatement(), named);
        assertTrue(plan.contains("Index Scan using work_pkey on work"), plan);
        assertFalse(plan.contains("Seq Scan"), plan);
        String unguarded = plan("explain (costs off) " + QUEUE.removeStatement(), named, false);
        assertTrue(unguarded.contains("Seq Scan on work"), "without the guard, these statistics read the whole table: "
                + unguarded);
        int removed = LocalTransaction.<Integer>run(dataSource, "removing", c -> QUEUE.remove(c, ids));
        assertEquals(40, removed);
        try (Connection c = dataSource.getConnection();
                ResultSet r = c.createStatement().executeQuery("select count(*) from work")) {
            r.next();
            assertEquals(4_960, r.getLong(1), "only the rows named went");
        }
        assertEquals(0, (int) LocalTransaction.<Integer>run(dataSource, "removing again", c -> QUEUE.remove(c, ids)));
    }

    @Test
    void concurrentClaimsNeverShareARowALeaseHoldsAndHeldRowsAreNeverClaimed() throws Exception {
        try (Connection c = dataSource.getConnection()) {
            c.createStatement().execute("truncate work");
        }
        fill(500, false);
        fill(100, true);
        Instant now = Instant.now();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<List<String>>> claims = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            claims.add(pool.submit(() -> {
                go.await();
                List<String> mine = new ArrayList<>();
                for (List<String> batch = claim(now); !batch.isEmpty(); batch = claim(now)) {
                    mine.addAll(batch);
                }
                return mine;
            }));
        }
        go.countDown();
        Set<String> seen = new HashSet<>();
        for (Future<List<String>> f : claims) {
            for (String id : f.get()) {
                assertTrue(seen.add(id), "claimed twice: " + id);
            }
        }
        pool.shutdown();
        assertEquals(500, seen.size(), "every due row was claimed once, no held row");
        assertTrue(claim(now).isEmpty(), "nothing is claimable during the leases");
        assertEquals(500, claim(now.plusSeconds(61)).size() + claim(now.plusSeconds(61)).size()
                + claim(now.plusSeconds(61)).size() + claimAll(now.plusSeconds(61)),
                "once the leases ended, every row is claimable again");

        // a lease handed back frees its row at once; another owner's is left alone
        List<String> one = claim(now.plusSeconds(200)).subList(0, 1);
        String id = one.get(0);
        String owner;
        try (Connection c = dataSource.getConnection();
                PreparedStatement s = c.prepareStatement("select lease_owner from work where id = ?")) {
            s.setObject(1, UUID.fromString(id));
            try (ResultSet r = s.executeQuery()) {
                r.next();
                owner = r.getString(1);
            }
            assertFalse(QUEUE.release(c, UUID.fromString(id), "another:1"));
            assertTrue(QUEUE.release(c, UUID.fromString(id), owner));
        }
        assertTrue(claim(now.plusSeconds(200)).contains(id), "handed back: claimable at once");
    }

    private static int claimAll(Instant at) throws Exception {
        int n = 0;
        for (List<String> b = claim(at); !b.isEmpty(); b = claim(at)) {
            n += b.size();
        }
        return n;
    }

    private static List<String> claim(Instant at) {
        return LocalTransaction.run(dataSource, "claiming",
                c -> QUEUE.claim(c, at, at.plusSeconds(60), 32, (r, owner, until) -> r.getString(1)));
    }
}
