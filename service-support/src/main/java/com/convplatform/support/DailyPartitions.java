package com.convplatform.support;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/**
 * The day partitions (UTC) of a table partitioned by range on a timestamp, named {@code <table>_pYYYYMMDD}, each from
 * its day's midnight to the next: made ahead of time, listed, and dropped whole. Plain SQL on the connection given.
 */
public final class DailyPartitions {
    private static final DateTimeFormatter NAME = DateTimeFormatter.ofPattern("yyyyMMdd");

    /** One partition: its table, name and day; rows with {@code from() <= t < until()}. */
    public record Partition(String table, String name, LocalDate day) {
        public Instant from() {
            return day.atStartOfDay().toInstant(ZoneOffset.UTC);
        }

        public Instant until() {
            return day.plusDays(1).atStartOfDay().toInstant(ZoneOffset.UTC);
        }
    }

    private final String table;

    public DailyPartitions(String table) {
        if (!table.matches("[a-z_][a-z0-9_]*")) {
            throw new IllegalArgumentException("not a plain table name: " + table);
        }
        this.table = table;
    }

    public String table() {
        return table;
    }

    /** The partition of {@code day}. */
    public Partition of(LocalDate day) {
        return new Partition(table, table + "_p" + NAME.format(day), day);
    }

    /** The partitions of the days from {@code first} to {@code last} that do not exist, oldest first. */
    public List<Partition> missing(Connection c, LocalDate first, LocalDate last) throws SQLException {
        List<String> existing = list(c).stream().map(Partition::name).toList();
        List<Partition> out = new ArrayList<>();
        for (LocalDate d = first; !d.isAfter(last); d = d.plusDays(1)) {
            Partition p = of(d);
            if (!existing.contains(p.name())) {
                out.add(p);
            }
        }
        return out;
    }

    /** Makes the partitions of the days from {@code first} to {@code last} that do not exist; how many it made. */
    public int ensure(Connection c, LocalDate first, LocalDate last) throws SQLException {
        List<Partition> missing = missing(c, first, last);
        for (Partition p : missing) {
            try (Statement s = c.createStatement()) {
                s.execute("create table if not exists " + p.name() + " partition of " + table + " for values from ('"
                        + p.from() + "') to ('" + p.until() + "')");
            }
        }
        return missing.size();
    }

    /**
     * The table's day partitions, oldest first, one whose detach an earlier run left pending included (its drop
     * finishes it).
     */
    public List<Partition> list(Connection c) throws SQLException {
        List<Partition> out = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("select c.relname from pg_inherits i join pg_class c on"
                + " c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent where p.relname = ? and"
                + " p.relnamespace = c.relnamespace and p.relnamespace = (select oid from pg_namespace where nspname ="
                + " current_schema()) order by c.relname")) {
            s.setString(1, table);
            try (ResultSet r = s.executeQuery()) {
                String prefix = table + "_p";
                while (r.next()) {
                    String name = r.getString(1);
                    if (name.startsWith(prefix) && name.length() == prefix.length() + 8) {
                        out.add(new Partition(table, name, LocalDate.parse(name.substring(prefix.length()), NAME)));
                    }
                }
            }
        }
        return out;
    }

    /**
     * Detaches the partition without blocking the table's readers and writers ({@code DETACH ... CONCURRENTLY}), then
     * drops it; also finishes a detach that an earlier run left pending. On a connection in auto-commit mode.
     */
    public void drop(Connection c, Partition p) throws SQLException {
        try (Statement s = c.createStatement()) {
            boolean pending = false;
            try (ResultSet r = s.executeQuery("select i.inhdetachpending from pg_inherits i join pg_class c on c.oid ="
                    + " i.inhrelid where c.relname = '" + p.name() + "' and c.relnamespace = (select oid from"
                    + " pg_namespace where nspname = current_schema())")) {
                if (r.next()) {
                    pending = r.getBoolean(1);
                } else {
                    s.execute("drop table if exists " + p.name());
                    return;
                }
            }
            s.execute("alter table " + table + " detach partition " + p.name()
                    + (pending ? " finalize" : " concurrently"));
            s.execute("drop table " + p.name());
        }
    }

    /**
     * Tables named as this table's day partitions that are no longer partitions of it: detached by a drop that
     * failed before its last step. They are dropped with the partitions past the period.
     */
    public List<Partition> detached(Connection c) throws SQLException {
        List<Partition> out = new ArrayList<>();
        String prefix = table + "_p";
        try (PreparedStatement s = c.prepareStatement("select c.relname from pg_class c where c.relkind = 'r' and"
                + " c.relname like ? and c.relnamespace = (select oid from pg_namespace where nspname ="
                + " current_schema()) and not c.relispartition order by c.relname")) {
            s.setString(1, prefix.replace("_", "\\_") + "%");
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    String name = r.getString(1);
                    if (name.length() == prefix.length() + 8 && name.substring(prefix.length()).chars()
                            .allMatch(Character::isDigit)) {
                        out.add(new Partition(table, name, LocalDate.parse(name.substring(prefix.length()), NAME)));
                    }
                }
            }
        }
        return out;
    }

    /** Rows (PostgreSQL's estimate, kept by autovacuum and ANALYZE; 0 when never counted) and bytes of the partitions. */
    public long[] size(Connection c) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("select coalesce(sum(greatest(c.reltuples, 0)), 0)::bigint,"
                + " coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint from pg_inherits i join pg_class c on"
                + " c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent where p.relname = ? and p.relnamespace ="
                + " (select oid from pg_namespace where nspname = current_schema())")) {
            s.setString(1, table);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return new long[]{r.getLong(1), r.getLong(2)};
            }
        }
    }
}
