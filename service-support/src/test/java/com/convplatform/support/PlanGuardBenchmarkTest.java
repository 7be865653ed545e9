package com.convplatform.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import com.convplatform.testsupport.PostgresTestResource;

/**
 * What the plan guard's own round trip costs PostgreSQL: claim transactions (one due row each) with the guard as a
 * statement of its own, then sent with the claim ({@link LeaseQueue#guarded}), in alternating rounds on one
 * connection, each round's CPU time read from the serving backend's {@code /proc/<pid>/stat}. Prints the figures; run
 * on a quiet machine, outside the default suite:
 * {@code ./mvnw -pl service-support test -Dgroups=benchmark -DexcludedGroups= -Dtest=PlanGuardBenchmarkTest}
 * (CLAIMS per round, default 4000; six rounds).
 */
@Tag("benchmark")
class PlanGuardBenchmarkTest {
    private static final LeaseQueue QUEUE = new LeaseQueue("work", "true", "t.id");

    @Test
    void theGuardSentWithTheClaimSavesTheBackendARoundTrip() throws Exception {
        int claims = Integer.getInteger("claims", 4000);
        PostgresTestResource.Database db = PostgresTestResource.create("plan_guard_benchmark");
        try {
            PGSimpleDataSource ds = new PGSimpleDataSource();
            ds.setUrl(db.url());
            ds.setUser(db.user());
            if (db.password() != null) {
                ds.setPassword(db.password());
            }
            try (Connection c = ds.getConnection()) {
                try (Statement s = c.createStatement()) {
                    s.execute("create table work (id uuid primary key, payload text not null, next_attempt_at"
                            + " timestamptz not null, lease_owner varchar(64), lease_until timestamptz)"
                            + " with (fillfactor = 70)");
                    s.execute("create index work_due_idx on work (next_attempt_at)");
                    s.execute("insert into work (id, payload, next_attempt_at) select gen_random_uuid(),"
                            + " repeat('x', 500), now() - interval '1 hour' from generate_series(1, 1000)");
                }
                int pid;
                try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("select pg_backend_pid()")) {
                    r.next();
                    pid = r.getInt(1);
                }
                Path stat = Path.of("/proc/" + pid + "/stat");
                assumeTrue(Files.isReadable(stat), "the PostgreSQL serving this benchmark runs on another machine");
                c.setAutoCommit(false);
                for (int round = 0; round < 6; round++) {
                    for (boolean pipelined : round % 2 == 0 ? List.of(false, true) : List.of(true, false)) {
                        long before = ticks(stat);
                        long started = System.nanoTime();
                        for (int i = 0; i < claims; i++) {
                            assertEquals(1, claim(c, pipelined), "each transaction claims one row");
                            c.commit();
                        }
                        double cpu = (ticks(stat) - before) * 10_000.0 / claims; // 100 ticks a second
                        double wall = (System.nanoTime() - started) / 1_000.0 / claims;
                        System.out.printf(
                                "plan guard %-26s backend CPU %6.1f us per claim transaction, wall %6.1f us%n",
                                pipelined ? "sent with the claim:" : "as a statement of its own:", cpu, wall);
                    }
                }
            }
        } finally {
            PostgresTestResource.drop(db);
        }
    }

    /** One claim of one row under a 1 ms lease, so that the rows come round again; how many it took. */
    private static int claim(Connection c, boolean pipelined) throws Exception {
        Instant now = Instant.now();
        if (pipelined) {
            return QUEUE.claim(c, now, now.plusMillis(1), 1, (r, owner, until) -> r.getString(1)).size();
        }
        LeaseQueue.guardPlans(c);
        try (PreparedStatement s = c.prepareStatement(QUEUE.claimStatement())) {
            LocalTransaction.bind(s, LeaseQueue.utc(now), LeaseQueue.utc(now), 1, "benchmark:1",
                    LeaseQueue.utc(now.plusMillis(1)));
            int n = 0;
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    n++;
                }
            }
            return n;
        }
    }

    private static long ticks(Path stat) throws Exception {
        String[] fields = Files.readString(stat).split("\\) ", 2)[1].split(" ");
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime and stime
    }
}
