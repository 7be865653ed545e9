package com.convplatform.hook;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import com.convplatform.support.TimeOrderedIds;

import io.quarkus.arc.Arc;

/**
 * The delivery tables as the tests read them and set them up (what another replica, or one that died, left behind),
 * by plain SQL on the service's own datasource.
 */
public final class QueueRows {
    /** A queue row as stored. */
    public record Queued(String id, String eventId, String accountId, long messageId, int attempts, int scheduleStart,
            Instant nextAttemptAt, boolean held, String leaseOwner, Instant leaseUntil) {
    }

    private QueueRows() {
    }

    public static DataSource dataSource() {
        return Arc.container().instance(DataSource.class).get();
    }

    /** A delivery under a lease of a replica that died, due since {@code dueSince}; its id. */
    public static String leftByDeadReplica(String account, long messageId, Instant leaseUntil) {
        String id = TimeOrderedIds.next();
        update("insert into delivery_queue (id, event_id, account_id, message_id, payload, received_at,"
                + " next_attempt_at, lease_owner, lease_until) values (?, ?, ?, ?, ?, ?, ?, 'replica-that-died:1', ?)",
                UUID.fromString(id), UUID.fromString(TimeOrderedIds.next()), account, messageId,
                "{\"user_id\":\"u\",\"conversation_number\":1,\"message_body\":\"{}\",\"message_id\":" + messageId
                        + ",\"sender\":\"user\",\"timestamp\":\"2026-11-22T10:00:00.000Z\",\"metadata\":{}}",
                utc(Instant.now()), utc(Instant.now().minusSeconds(5)), utc(leaseUntil));
        return id;
    }

    /** The queue row of a delivery; null once it has left the queue. */
    public static Queued queued(String deliveryId) {
        List<Queued> rows = select("where id = ?", UUID.fromString(deliveryId));
        return rows.isEmpty() ? null : rows.get(0);
    }

    /** The queue row carrying an event; null once it has left the queue. */
    public static Queued queuedOfEvent(String eventId) {
        List<Queued> rows = select("where event_id = ?", UUID.fromString(eventId));
        return rows.isEmpty() ? null : rows.get(0);
    }

    /** The account's queue rows. */
    public static List<Queued> ofAccount(String account) {
        return select("where account_id = ? order by id", account);
    }

    /** Rows of the attempt log of these deliveries. */
    public static long attempts(Collection<String> deliveryIds) {
        return count("select count(*) from delivery_attempt where delivery_id = any(?)",
                (Object) deliveryIds.stream().map(UUID::fromString).toArray(UUID[]::new));
    }

    public static long count(String sql, Object... args) {
        try (Connection c = dataSource().getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            bind(c, s, args);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return r.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    public static int update(String sql, Object... args) {
        try (Connection c = dataSource().getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            bind(c, s, args);
            return s.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<Queued> select(String where, Object... args) {
        List<Queued> out = new ArrayList<>();
        try (Connection c = dataSource().getConnection();
                PreparedStatement s = c.prepareStatement("select id, event_id, account_id, message_id, attempts,"
                        + " schedule_start, next_attempt_at, held, lease_owner, lease_until from delivery_queue "
                        + where)) {
            bind(c, s, args);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    OffsetDateTime lease = r.getObject(10, OffsetDateTime.class);
                    out.add(new Queued(r.getString(1), r.getString(2), r.getString(3), r.getLong(4), r.getInt(5),
                            r.getInt(6), r.getObject(7, OffsetDateTime.class).toInstant(), r.getBoolean(8),
                            r.getString(9), lease == null ? null : lease.toInstant()));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return out;
    }

    private static void bind(Connection c, PreparedStatement s, Object... args) throws SQLException {
        for (int i = 0; i < args.length; i++) {
            if (args[i] instanceof Object[] array) {
                s.setArray(i + 1, c.createArrayOf(array instanceof UUID[] ? "uuid" : "varchar", array));
            } else {
                s.setObject(i + 1, args[i]);
            }
        }
    }

    public static OffsetDateTime utc(Instant t) {
        return OffsetDateTime.ofInstant(t, ZoneOffset.UTC);
    }
}
