package com.convplatform.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;

import javax.sql.DataSource;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.convplatform.testsupport.PostgresTestResource;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/** Day partitions and retention on a real PostgreSQL: made ahead, dropped once past the period, leftovers cleaned. */
class DailyPartitionsTest {
    private static PostgresTestResource.Database db;
    private static DataSource dataSource;

    @BeforeAll
    static void database() throws Exception {
        db = PostgresTestResource.create("partitions");
        dataSource = db.dataSource();
        try (Connection c = dataSource.getConnection()) {
            c.createStatement()
                    .execute("create table history (at timestamptz not null, v text) partition by range (at)");
        }
    }

    @AfterAll
    static void drop() {
        PostgresTestResource.drop(db);
    }

    @Test
    void partitionsAreMadeAheadKeptForThePeriodThenDroppedWholeAndALeftoverDetachedTableGoesToo() throws Exception {
        Instant now = Instant.parse("2026-11-29T10:00:00Z");
        LocalDate today = LocalDate.ofInstant(now, ZoneOffset.UTC);
        Clock clock = Clock.fixed(now, ZoneOffset.UTC);
        SimpleMeterRegistry metrics = new SimpleMeterRegistry();
        DailyPartitions parts = new DailyPartitions("history");
        Retention retention = new Retention("test", dataSource, clock, metrics, Duration.ofDays(3),
                List.of(Retention.Table.of("history")), (c, cutoff) -> {
                });
        retention.ensurePartitions();
        try (Connection c = dataSource.getConnection()) {
            List<DailyPartitions.Partition> made = parts.list(c);
            assertEquals(today.minusDays(1), made.get(0).day());
            assertEquals(today.plusDays(Retention.DAYS_AHEAD), made.get(made.size() - 1).day());
            c.createStatement().execute("insert into history values ('" + now + "', 'kept'), ('"
                    + now.minus(Duration.ofDays(1)) + "', 'old')");
            // a drop that stopped after its detach: the table is no partition any more
            c.createStatement().execute("create table history_p" + today.minusDays(9).toString().replace("-", "")
                    + " (at timestamptz not null, v text)");
        }
        Retention.Report first = retention.runAt(now);
        assertEquals(List.of("history_p" + today.minusDays(9).toString().replace("-", "")), first.dropped(),
                "nothing is past the period yet but the leftover");

        Retention.Report later = retention.runAt(now.plus(Duration.ofDays(4)));
        assertTrue(later.dropped().containsAll(List.of("history_p" + today.minusDays(1).toString().replace("-", ""),
                "history_p" + today.toString().replace("-", ""))), later.toString());
        try (Connection c = dataSource.getConnection();
                ResultSet r = c.createStatement().executeQuery("select count(*) from history")) {
            r.next();
            assertEquals(0, r.getLong(1), "the rows of the dropped days are gone");
            assertEquals(today.plusDays(1), parts.list(c).get(0).day());
            assertEquals(today.plusDays(4 + Retention.DAYS_AHEAD), parts.list(c).get(parts.list(c).size() - 1).day(),
                    "each run makes a week ahead of its time");
        }
        assertEquals(now.plus(Duration.ofDays(4)).getEpochSecond(),
                metrics.get("retention.last.run").gauge().value(), 0.5);
        assertEquals(11, metrics.get("retention.partitions").tag("table", "history").gauge().value(), 0.5);
    }

    /**
     * A replica that starts while another one's retention run holds the lock reads the catalogue only, when every
     * partition it needs is there: it does not wait for the run (which, with lock_timeout, failed its start). Its
     * connections here give up on a lock after a second, so a wait would fail the test, not hang it.
     */
    @Test
    void aStartWhileAnotherReplicaHoldsTheRunsLockGoesOnWhenThePartitionsAreThere() throws Exception {
        try (Connection c = dataSource.getConnection()) {
            c.createStatement().execute("create table started (at timestamptz not null) partition by range (at)");
        }
        org.postgresql.ds.PGSimpleDataSource impatient = (org.postgresql.ds.PGSimpleDataSource) db.dataSource();
        impatient.setOptions("-c lock_timeout=1s");
        Retention retention = new Retention("started", impatient, Clock.systemUTC(), new SimpleMeterRegistry(),
                Duration.ofDays(3), List.of(Retention.Table.of("started")), (c, cutoff) -> {
                });
        retention.ensurePartitions(); // a new database: made under the lock
        try (Connection running = dataSource.getConnection()) {
            running.createStatement().execute("select pg_advisory_lock(" + retention.lockKey() + ")");
            retention.ensurePartitions();
            try (Connection c = dataSource.getConnection()) {
                c.createStatement().execute("drop table started_p"
                        + LocalDate.now(ZoneOffset.UTC).plusDays(Retention.DAYS_AHEAD).toString().replace("-", ""));
            }
            // one missing: made under the lock, so this start waits for the run, and here gives up after a second
            IllegalStateException waited = assertThrows(IllegalStateException.class, retention::ensurePartitions);
            assertTrue(waited.getCause().getMessage().contains("lock timeout"), waited.getCause().getMessage());
        }
        retention.ensurePartitions();
        try (Connection c = dataSource.getConnection()) {
            assertEquals(List.of(), new DailyPartitions("started").missing(c,
                    LocalDate.now(ZoneOffset.UTC).minusDays(1),
                    LocalDate.now(ZoneOffset.UTC).plusDays(Retention.DAYS_AHEAD)));
        }
    }
}
