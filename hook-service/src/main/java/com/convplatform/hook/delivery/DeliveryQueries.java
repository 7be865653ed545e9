package com.convplatform.hook.delivery;

import static com.convplatform.hook.delivery.DeliveryStore.utc;
import static com.convplatform.support.LocalTransaction.bind;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;

import com.convplatform.support.LocalTransaction;
import com.convplatform.support.TimeOrderedIds;

/**
 * The operator's reads and changes of deliveries, over the queue (unfinished), the history (finished) and the dead
 * letters: one delivery is in the queue while unfinished, and its latest history row once finished (a replayed dead
 * delivery has its earlier rows too). Plain JDBC, as the rest of the data path.
 */
@ApplicationScoped
public class DeliveryQueries {
    /** A delivery as listed. */
    public record Row(String deliveryId, String eventId, String accountId, long messageId, String status,
            int attempts, Instant nextAttemptAt, String lastError, Instant deliveredAt, Instant createdAt,
            String requestId, String payload, String traceparent, int scheduleStart, Instant leaseUntil,
            boolean held) {
    }

    /** One attempt of a delivery. */
    public record AttemptRow(int attempt, Instant startedAt, long latencyMs, Integer statusCode, String error,
            String signatureHeaders) {
    }

    /** One endpoint's state; {@code held}: its deliveries in the queue. */
    public record EndpointRow(String accountId, int consecutiveFailures, Instant failingSince, Instant lastFailureAt,
            Instant disabledAt, String disabledBy, String disabledReason, long held) {
    }

    /** The filters of a listing; any may be null. */
    public record Filter(String status, String accountId, Instant createdAfter, Instant createdBefore,
            String beforeId, Long messageId, int limit) {
    }

    /** Deliveries finished and attempts failed in one hour. */
    public record Hour(Instant hour, long delivered, long dead, long failedAttempts) {
    }

    private final DataSource dataSource;
    private final Clock clock;

    public DeliveryQueries(DataSource dataSource, Clock clock) {
        this.dataSource = dataSource;
        this.clock = clock;
    }

    private static final String QUEUE_COLUMNS = "q.id, q.event_id, q.account_id, q.message_id, 'PENDING', q.attempts,"
            + " q.next_attempt_at, q.last_error, null::timestamptz, q.received_at, q.request_id, q.payload,"
            + " q.traceparent, q.schedule_start, q.lease_until, q.held";
    private static final String HISTORY_COLUMNS = "h.id, h.event_id, h.account_id, h.message_id, h.status, h.attempts,"
            + " h.finished_at, h.last_error, case when h.status = 'DELIVERED' then h.finished_at end, h.received_at,"
            + " h.request_id, h.payload, h.traceparent, h.attempts, null::timestamptz, false";
    /** The latest history row of a delivery that is not back in the queue. */
    private static final String LATEST = " not exists (select 1 from delivery_queue q where q.id = h.id) and not exists"
            + " (select 1 from delivery_history n where n.id = h.id and n.finished_at > h.finished_at)";

    /** Queue rows; the oldest first (ids are time-ordered). */
    public long queued() {
        return count("select count(*) from delivery_queue");
    }

    public long held() {
        return count("select count(*) from delivery_queue where held");
    }

    public long dead() {
        return count("select count(*) from dead_letter");
    }

    public long disabledEndpoints() {
        return count("select count(*) from endpoint_state where disabled_at is not null");
    }

    /** Queue rows created since {@code since}, by the time in their ids (the primary key's range, not a scan). */
    public long queuedSince(Instant since) {
        return read("Counting queued deliveries", c -> {
            try (PreparedStatement s = c.prepareStatement("select count(*) from delivery_queue where id >= ?")) {
                s.setObject(1, TimeOrderedIds.lowest(since));
                try (ResultSet r = s.executeQuery()) {
                    r.next();
                    return r.getLong(1);
                }
            }
        });
    }

    /** The oldest unfinished delivery: its id and when it was created. */
    public Optional<Row> oldestQueued() {
        return read("Reading the oldest delivery", c -> first(c, "select " + QUEUE_COLUMNS + " from delivery_queue q"
                + " order by q.id limit 1"));
    }

    /** The last hours' counts, oldest first, one per hour that has any. */
    public List<Hour> hours(Instant since) {
        return read("Reading the hourly counts", c -> {
            List<Hour> out = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement("select hour, delivered, dead, failed_attempts from"
                    + " delivery_stats where hour >= ? order by hour")) {
                bind(s, utc(since));
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        out.add(new Hour(r.getObject(1, OffsetDateTime.class).toInstant(), r.getLong(2), r.getLong(3),
                                r.getLong(4)));
                    }
                }
            }
            return out;
        });
    }

    /** One delivery by its id: in the queue, else its latest history row. */
    public Optional<Row> delivery(String id) {
        UUID uuid = uuid(id);
        if (uuid == null) {
            return Optional.empty();
        }
        return read("Reading a delivery", c -> {
            Optional<Row> queued = first(c, "select " + QUEUE_COLUMNS + " from delivery_queue q where q.id = ?", uuid);
            return queued.isPresent()
                    ? queued
                    : first(c, "select " + HISTORY_COLUMNS + " from delivery_history h where h.id = ? and h.finished_at"
                            + " >= ? order by h.finished_at desc limit 1", uuid, utc(TimeOrderedIds.time(id)));
        });
    }

    /** Every attempt of a delivery, in the order made (numbers went on over a retry). */
    public List<AttemptRow> attempts(String deliveryId) {
        UUID uuid = uuid(deliveryId);
        return read("Reading the attempts", c -> {
            List<AttemptRow> out = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement("select attempt, started_at, latency_ms, status_code, error,"
                    + " signature_headers from delivery_attempt where delivery_id = ? and started_at >= ? order by"
                    + " started_at, attempt, id")) {
                bind(s, uuid, utc(TimeOrderedIds.time(deliveryId)));
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        out.add(new AttemptRow(r.getInt(1), r.getObject(2, OffsetDateTime.class).toInstant(),
                                r.getLong(3), (Integer) r.getObject(4), r.getString(5), r.getString(6)));
                    }
                }
            }
            return out;
        });
    }

    /**
     * Deliveries newest first, filtered, at most {@code limit}: by their time-ordered ids, or, for one account, by
     * message id (the account's index: ids of messages grow as they are logged), the page before {@code beforeId}'s
     * delivery.
     */
    public List<Row> list(Filter f) {
        boolean byAccount = f.accountId() != null;
        List<Object> queueArgs = new ArrayList<>();
        List<Object> historyArgs = new ArrayList<>();
        StringBuilder q = new StringBuilder(" where true");
        StringBuilder h = new StringBuilder(" where" + LATEST);
        if (f.accountId() != null) {
            q.append(" and q.account_id = ?");
            queueArgs.add(f.accountId());
            h.append(" and h.account_id = ?");
            historyArgs.add(f.accountId());
        }
        if (f.messageId() != null) {
            q.append(" and q.message_id = ?");
            queueArgs.add(f.messageId());
            h.append(" and h.message_id = ?");
            historyArgs.add(f.messageId());
        }
        if (f.createdAfter() != null) {
            q.append(" and q.id >= ?");
            queueArgs.add(TimeOrderedIds.lowest(f.createdAfter()));
            // a delivery finishes after it is created: the partitions before then are left out
            h.append(" and h.id >= ? and h.finished_at >= ?");
            historyArgs.add(TimeOrderedIds.lowest(f.createdAfter()));
            historyArgs.add(utc(f.createdAfter()));
        }
        if (f.createdBefore() != null) {
            // with before_id (the page's last delivery, created at created_before), the deliveries of that same
            // millisecond after it in the order are on the next page: the bound takes that millisecond in
            UUID bound = TimeOrderedIds
                    .lowest(f.beforeId() == null ? f.createdBefore() : f.createdBefore().plusMillis(1));
            q.append(" and q.id < ?");
            queueArgs.add(bound);
            h.append(" and h.id < ?");
            historyArgs.add(bound);
        }
        UUID before = f.beforeId() == null ? null : uuid(f.beforeId());
        if (before != null && byAccount) {
            long beforeMessage = delivery(f.beforeId()).map(Row::messageId).orElse(Long.MAX_VALUE);
            q.append(" and q.message_id < ?");
            queueArgs.add(beforeMessage);
            h.append(" and h.message_id < ?");
            historyArgs.add(beforeMessage);
        } else if (before != null) {
            q.append(" and q.id < ?");
            queueArgs.add(before);
            h.append(" and h.id < ?");
            historyArgs.add(before);
        }
        boolean queue = f.status() == null || DeliveryStore.PENDING.equals(f.status());
        boolean history = f.status() == null || !DeliveryStore.PENDING.equals(f.status());
        if (f.status() != null && history) {
            h.append(" and h.status = ?");
            historyArgs.add(f.status());
        }
        List<String> parts = new ArrayList<>();
        List<Object> args = new ArrayList<>();
        String order = byAccount ? "message_id" : "id";
        if (queue) {
            parts.add(
                    "(select " + QUEUE_COLUMNS + " from delivery_queue q" + q + " order by q." + order + " desc limit "
                            + f.limit() + ")");
            args.addAll(queueArgs);
        }
        if (history) {
            parts.add("(select " + HISTORY_COLUMNS + " from delivery_history h" + h + " order by h." + order
                    + " desc limit " + f.limit() + ")");
            args.addAll(historyArgs);
        }
        String sql = "select * from (" + String.join(" union all ", parts) + ") d order by " + (byAccount ? 4 : 1)
                + " desc limit " + f.limit();
        return read("Listing deliveries", c -> {
            List<Row> out = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement(sql)) {
                bind(s, args.toArray());
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        out.add(row(r));
                    }
                }
            }
            return out;
        });
    }

    /** The endpoint's state (none: healthy and enabled) and its deliveries in the queue. */
    public EndpointRow endpoint(String accountId) {
        return read("Reading an endpoint", c -> endpoint(c, accountId));
    }

    static EndpointRow endpoint(Connection c, String accountId) throws SQLException {
        long held;
        try (PreparedStatement s = c.prepareStatement("select count(*) from delivery_queue where account_id = ?")) {
            bind(s, accountId);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                held = r.getLong(1);
            }
        }
        try (PreparedStatement s = c.prepareStatement("select consecutive_failures, failing_since, last_failure_at,"
                + " disabled_at, disabled_by, disabled_reason from endpoint_state where account_id = ?")) {
            bind(s, accountId);
            try (ResultSet r = s.executeQuery()) {
                if (!r.next()) {
                    return new EndpointRow(accountId, 0, null, null, null, null, null, held);
                }
                return new EndpointRow(accountId, r.getInt(1), instant(r, 2), instant(r, 3), instant(r, 4),
                        r.getString(5), r.getString(6), held);
            }
        }
    }

    /** The disabled endpoints, longest disabled first. */
    public List<EndpointRow> disabled(int limit) {
        return read("Reading the disabled endpoints", c -> {
            List<String> accounts = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement("select account_id from endpoint_state where disabled_at is"
                    + " not null order by disabled_at, account_id limit ?")) {
                bind(s, limit);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        accounts.add(r.getString(1));
                    }
                }
            }
            List<EndpointRow> out = new ArrayList<>();
            for (String a : accounts) {
                out.add(endpoint(c, a));
            }
            return out;
        });
    }

    /** What a retry or replay found. */
    public enum Requeue {
        REQUEUED, NOT_FOUND, DELIVERED, IN_FLIGHT
    }

    /**
     * Queues one delivery again now, with its full retry schedule: a pending one not being attempted (locked, so a
     * claim or an outcome being recorded is waited for and seen), or a dead letter (back from the history).
     */
    public Requeue retry(String id) {
        UUID uuid = uuid(id);
        if (uuid == null) {
            return Requeue.NOT_FOUND;
        }
        Instant now = clock.instant();
        return LocalTransaction.run(dataSource, "Queueing a delivery again", c -> {
            try (PreparedStatement s = c.prepareStatement("select lease_until from delivery_queue where id = ? for"
                    + " update")) {
                bind(s, uuid);
                try (ResultSet r = s.executeQuery()) {
                    if (r.next()) {
                        OffsetDateTime lease = r.getObject(1, OffsetDateTime.class);
                        if (lease != null && lease.toInstant().isAfter(now)) {
                            return Requeue.IN_FLIGHT;
                        }
                        DeliveryStore.update(c, "update delivery_queue set schedule_start = attempts,"
                                + " next_attempt_at = ?, lease_owner = null, lease_until = null where id = ?",
                                utc(now), uuid);
                        return Requeue.REQUEUED;
                    }
                }
            }
            if (DeliveryStore.update(c, "delete from dead_letter where delivery_id = ?", uuid) == 1
                    && requeueDead(c, List.of(uuid), now) == 1) {
                return Requeue.REQUEUED;
            }
            return delivery(c, id).isPresent() ? Requeue.DELIVERED : Requeue.NOT_FOUND;
        });
    }

    /**
     * Queues every dead letter of the account again; how many were queued (a dead letter whose history retention has
     * dropped, before its own removal, is removed and not counted).
     */
    public int replay(String accountId) {
        Instant now = clock.instant();
        return LocalTransaction.run(dataSource, "Replaying dead letters", c -> {
            List<UUID> ids = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement("delete from dead_letter where account_id = ? returning"
                    + " delivery_id")) {
                bind(s, accountId);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        ids.add(r.getObject(1, UUID.class));
                    }
                }
            }
            return requeueDead(c, ids, now);
        });
    }

    /**
     * Puts dead deliveries back into the queue from their latest history row; attempt numbers go on from the highest
     * recorded (the attempt log can be ahead of the count: an attempt recorded by a replica that had lost its lease).
     * The history rows stay: the history is append-only. Returns how many were queued: none for an id whose history is
     * gone.
     */
    private static int requeueDead(Connection c, List<UUID> ids, Instant now) throws SQLException {
        if (ids.isEmpty()) {
            return 0;
        }
        try (PreparedStatement s = c.prepareStatement("insert into delivery_queue (id, event_id, account_id,"
                + " message_id, payload, request_id, traceparent, received_at, attempts, schedule_start,"
                + " next_attempt_at, held, last_error) select h.id, h.event_id, h.account_id, h.message_id, h.payload,"
                + " h.request_id, h.traceparent, h.received_at, a.n, a.n, ?, coalesce((select s.disabled_at is not"
                + " null from endpoint_state s where s.account_id = h.account_id for share), false), h.last_error"
                + " from delivery_history h cross join lateral (select greatest(h.attempts, coalesce(max(t.attempt),"
                + " 0)) n from delivery_attempt t where t.delivery_id = h.id) a where h.id = any(?) and not exists"
                + " (select 1 from delivery_history n where n.id = h.id and n.finished_at > h.finished_at)"
                + " on conflict do nothing")) {
            s.setObject(1, utc(now));
            s.setArray(2, c.createArrayOf("uuid", ids.toArray()));
            return s.executeUpdate();
        }
    }

    /** Disables the endpoint (a second disabling keeps the first one's time and takes the new reason). */
    public EndpointRow disable(String accountId, String reason) {
        Instant now = clock.instant();
        return LocalTransaction.run(dataSource, "Disabling an endpoint", c -> {
            // the upsert locks the row: intake's FOR SHARE read waits for this commit, or is seen by it
            DeliveryStore.update(c, "insert into endpoint_state (account_id, consecutive_failures, disabled_at,"
                    + " disabled_by, disabled_reason) values (?, 0, ?, ?, ?) on conflict (account_id) do update set"
                    + " disabled_at = coalesce(endpoint_state.disabled_at, excluded.disabled_at), disabled_by ="
                    + " excluded.disabled_by, disabled_reason = excluded.disabled_reason", accountId, utc(now),
                    DeliveryStore.BY_OPERATOR, reason);
            DeliveryStore.update(c, EndpointHealth.HOLD_ACCOUNT, accountId);
            return endpoint(c, accountId);
        });
    }

    /** Enables the endpoint: clears its failure streak and makes every held delivery due now. */
    public EndpointRow enable(String accountId) {
        Instant now = clock.instant();
        return LocalTransaction.run(dataSource, "Enabling an endpoint", c -> {
            if (DeliveryStore.update(c, "update endpoint_state set disabled_at = null, disabled_by = null,"
                    + " disabled_reason = null, consecutive_failures = 0, failing_since = null where account_id = ?",
                    accountId) == 1) {
                DeliveryStore.update(c,
                        "update delivery_queue set held = false, next_attempt_at = least(next_attempt_at,"
                                + " ?) where account_id = ? and held",
                        utc(now), accountId);
            }
            return endpoint(c, accountId);
        });
    }

    /** The deliveries of the account's messages, for the erasure of a user: removed from queue, history and log. */
    public Map<String, Integer> erase(String accountId, List<Long> messageIds) {
        return LocalTransaction.run(dataSource, "Erasing deliveries", c -> {
            Map<String, Integer> counts = new LinkedHashMap<>();
            Long[] messages = messageIds.toArray(Long[]::new);
            List<UUID> deliveries = new ArrayList<>();
            for (String table : List.of("delivery_queue", "delivery_history")) {
                try (PreparedStatement s = c.prepareStatement("delete from " + table + " where account_id = ? and"
                        + " message_id = any(?) returning id")) {
                    s.setString(1, accountId);
                    s.setArray(2, c.createArrayOf("bigint", messages));
                    int n = 0;
                    try (ResultSet r = s.executeQuery()) {
                        while (r.next()) {
                            deliveries.add(r.getObject(1, UUID.class));
                            n++;
                        }
                    }
                    counts.put(table, n);
                }
            }
            try (PreparedStatement s = c.prepareStatement("delete from delivery_attempt where delivery_id = any(?)");
                    PreparedStatement d = c.prepareStatement("delete from dead_letter where delivery_id = any(?)")) {
                s.setArray(1, c.createArrayOf("uuid", deliveries.toArray()));
                counts.put("delivery_attempt", s.executeUpdate());
                d.setArray(1, c.createArrayOf("uuid", deliveries.toArray()));
                counts.put("dead_letter", d.executeUpdate());
            }
            return counts;
        });
    }

    private static Optional<Row> delivery(Connection c, String id) throws SQLException {
        return first(c, "select " + HISTORY_COLUMNS + " from delivery_history h where h.id = ? order by h.finished_at"
                + " desc limit 1", UUID.fromString(id));
    }

    private static Optional<Row> first(Connection c, String sql, Object... args) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            bind(s, args);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? Optional.of(row(r)) : Optional.empty();
            }
        }
    }

    private static Row row(ResultSet r) throws SQLException {
        return new Row(r.getString(1), r.getString(2), r.getString(3), r.getLong(4), r.getString(5), r.getInt(6),
                instant(r, 7), r.getString(8), instant(r, 9), instant(r, 10), r.getString(11), r.getString(12),
                r.getString(13), r.getInt(14), instant(r, 15), r.getBoolean(16));
    }

    private static Instant instant(ResultSet r, int column) throws SQLException {
        OffsetDateTime t = r.getObject(column, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }

    private long count(String sql) {
        return read("Counting", c -> {
            try (PreparedStatement s = c.prepareStatement(sql); ResultSet r = s.executeQuery()) {
                r.next();
                return r.getLong(1);
            }
        });
    }

    private <T> T read(String what, LocalTransaction.Work<T> work) {
        return LocalTransaction.run(dataSource, what, work);
    }

    /** Null for a string that is not a UUID (no delivery has such an id). */
    static UUID uuid(String id) {
        try {
            return id == null ? null : UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
