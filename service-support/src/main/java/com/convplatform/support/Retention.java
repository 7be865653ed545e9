package com.convplatform.support;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import org.jboss.logging.Logger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * A service's retention on PostgreSQL: its history tables are partitioned by day (UTC, {@link DailyPartitions}); each
 * run makes the partitions of the next week, and drops whole the partitions whose last instant is more than the
 * retention period ago (so a row is kept at least the period, at most a day more), each only once its table's own
 * step before the drop has succeeded (deleting the partition's files, say) and never while it holds work that is not
 * finished. One replica at a time runs it (an advisory lock); the others skip that run.
 * <p>
 * Metrics, tagged with the table: {@code retention.partitions}, {@code retention.oldest.partition.age} (seconds),
 * {@code retention.rows} (PostgreSQL's estimate), {@code retention.bytes}, {@code retention.partitions.dropped}; and
 * {@code retention.last.run} (the Unix time of the last run that completed, on any replica that ran it), which an
 * alert watches.
 */
public final class Retention {
    private static final Logger LOG = Logger.getLogger(Retention.class);
    /** How many days ahead partitions are made: inserts never wait on one, even if retention stops for days. */
    public static final int DAYS_AHEAD = 7;

    /** What must happen before a partition is dropped; false keeps it until a later run (say why in the log). */
    public interface BeforeDrop {
        boolean prepare(Connection c, DailyPartitions.Partition p) throws SQLException;
    }

    /** Work after the drops, with the cutoff (rows finished before it are past the period). */
    public interface After {
        void run(Connection c, Instant cutoff) throws SQLException;
    }

    /** One partitioned table and what its drop needs first. */
    public record Table(DailyPartitions partitions, BeforeDrop beforeDrop) {
        public static Table of(String name) {
            return new Table(new DailyPartitions(name), (c, p) -> true);
        }
    }

    /** What one run did: the partitions dropped and those kept past the period (with why, in the log). */
    public record Report(Instant at, Instant cutoff, List<String> dropped, List<String> kept) {
    }

    private final String service;
    private final DataSource dataSource;
    private final Clock clock;
    private final Duration period;
    private final List<Table> tables;
    private final After after;
    private final AtomicLong lastRun = new AtomicLong();
    private final Map<String, long[]> figures = new ConcurrentHashMap<>();
    private final MeterRegistry metrics;

    public Retention(String service, DataSource dataSource, Clock clock, MeterRegistry metrics, Duration period,
            List<Table> tables, After after) {
        this.service = service;
        this.dataSource = dataSource;
        this.clock = clock;
        this.period = period;
        this.tables = tables;
        this.after = after;
        this.metrics = metrics;
        Gauge.builder("retention.last.run", lastRun, AtomicLong::get).baseUnit("seconds")
                .description("When retention last completed (Unix time); 0 until it has on this replica")
                .register(metrics);
        for (Table t : tables) {
            String name = t.partitions().table();
            long[] f = figures.computeIfAbsent(name, k -> new long[4]);
            Gauge.builder("retention.partitions", f, a -> a[0]).tag("table", name)
                    .description("Day partitions of the table, from the oldest kept to a week ahead").register(metrics);
            Gauge.builder("retention.oldest.partition.age", f, a -> a[1]).tag("table", name).baseUnit("seconds")
                    .description("How long ago the oldest partition's day began").register(metrics);
            Gauge.builder("retention.rows", f, a -> a[2]).tag("table", name)
                    .description("Rows kept (PostgreSQL's estimate, as autovacuum and ANALYZE last counted them)")
                    .register(metrics);
            Gauge.builder("retention.bytes", f, a -> a[3]).tag("table", name).baseUnit("bytes")
                    .description("Bytes kept, indexes included").register(metrics);
        }
    }

    public Duration period() {
        return period;
    }

    /**
     * Makes the partitions from yesterday to a week ahead; at start, before any row is written. When they all exist
     * (every start but a new database's, since each run makes a week ahead), it only reads the catalogue: a replica
     * that starts while another one's retention run holds the lock does not wait for it (up to lock_timeout, then a
     * failed start). Otherwise under the retention run's lock, waited for: two replicas starting together would
     * otherwise create the same partition at once, and one of them fail its start ({@code create table if not exists}
     * is not safe against a concurrent create).
     */
    public void ensurePartitions() {
        LocalDate today = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC);
        LocalDate first = today.minusDays(1);
        LocalDate last = today.plusDays(DAYS_AHEAD);
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            boolean allThere = true;
            for (Table t : tables) {
                allThere &= t.partitions().missing(c, first, last).isEmpty();
            }
            if (allThere) {
                return;
            }
            s.execute("select pg_advisory_lock(" + lockKey() + ")");
            try {
                for (Table t : tables) {
                    t.partitions().ensure(c, first, last);
                }
            } finally {
                s.execute("select pg_advisory_unlock(" + lockKey() + ")");
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Making the day partitions of " + service + " failed", e);
        }
    }

    /** The advisory lock that one replica at a time holds to change the partitions. */
    long lockKey() {
        return ("retention:" + service).hashCode();
    }

    /** A run now. */
    public Report run() {
        return runAt(clock.instant());
    }

    /**
     * A run as if the time were {@code now} (tests move it); null when another replica holds the run. A failure is
     * logged and leaves {@code retention.last.run} where it was, so the alert sees it.
     */
    public synchronized Report runAt(Instant now) {
        Instant cutoff = now.minus(period);
        LocalDate today = LocalDate.ofInstant(now, ZoneOffset.UTC);
        List<String> dropped = new ArrayList<>();
        List<String> kept = new ArrayList<>();
        long key = lockKey();
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            try (ResultSet r = s.executeQuery("select pg_try_advisory_lock(" + key + ")")) {
                if (!r.next() || !r.getBoolean(1)) {
                    LOG.debugf("Retention of %s runs on another replica", service);
                    return null;
                }
            }
            try {
                // a drop that waits behind a long query must not hold up the writes queued behind it
                s.execute("set lock_timeout = '5s'");
                for (Table t : tables) {
                    DailyPartitions parts = t.partitions();
                    parts.ensure(c, today.minusDays(1), today.plusDays(DAYS_AHEAD));
                    for (DailyPartitions.Partition p : parts.list(c)) {
                        if (p.until().isAfter(cutoff)) {
                            continue;
                        }
                        if (t.beforeDrop().prepare(c, p)) {
                            parts.drop(c, p);
                            dropped.add(p.name());
                            Counter.builder("retention.partitions.dropped").tag("table", parts.table())
                                    .description("Day partitions dropped by retention").register(metrics).increment();
                        } else {
                            kept.add(p.name());
                        }
                    }
                    for (DailyPartitions.Partition p : parts.detached(c)) {
                        if (!p.until().isAfter(cutoff)) {
                            try (Statement drop = c.createStatement()) {
                                drop.execute("drop table if exists " + p.name());
                            }
                            dropped.add(p.name());
                        }
                    }
                    measure(c, parts, now);
                }
                after.run(c, cutoff);
            } finally {
                s.execute("reset lock_timeout");
                s.execute("select pg_advisory_unlock(" + key + ")");
            }
        } catch (SQLException | RuntimeException e) {
            LOG.errorf(e, "Retention of %s failed (period %s); the next run tries again, and RetentionStopped fires if"
                    + " none completes", service, period);
            return null;
        }
        lastRun.set(now.getEpochSecond());
        if (!dropped.isEmpty() || !kept.isEmpty()) {
            LOG.infof("Retention of %s (period %s, cutoff %s): dropped %s; kept past the period %s", service, period,
                    cutoff, dropped, kept);
        }
        return new Report(now, cutoff, dropped, kept);
    }

    private void measure(Connection c, DailyPartitions parts, Instant now) throws SQLException {
        List<DailyPartitions.Partition> all = parts.list(c);
        long[] size = parts.size(c);
        long[] f = figures.get(parts.table());
        f[0] = all.size();
        f[1] = all.isEmpty() ? 0 : Math.max(0, Duration.between(all.get(0).from(), now).toSeconds());
        f[2] = size[0];
        f[3] = size[1];
    }
}
