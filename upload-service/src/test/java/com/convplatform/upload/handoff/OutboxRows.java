package com.convplatform.upload.handoff;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.UUID;

import javax.sql.DataSource;

import com.convplatform.support.TimeOrderedIds;

import io.quarkus.arc.Arc;

/** Messages and outbox rows written and read straight in the database by the outbox tests (plain SQL). */
public final class OutboxRows {
    /** An outbox row as stored. */
    public record Row(String id, long messageId, int attempts, Instant nextAttemptAt, String leaseOwner,
            Instant leaseUntil, String lastError) {
    }

    private OutboxRows() {
    }

    static DataSource dataSource() {
        return Arc.container().instance(DataSource.class).get();
    }

    /** A logged message of account-1's user42, created at {@code createdAt}; its id. */
    public static long message(String body, Instant createdAt) {
        try (Connection c = dataSource().getConnection();
                PreparedStatement s = c.prepareStatement("insert into message (account_id, client_id, business_id,"
                        + " auth_id, message_type, message_body, file_id, file_name, content_type, size_bytes,"
                        + " created_at) values ('account-1', 'client-1', '1001', 'user42', 1, ?, ?, 'a.png',"
                        + " 'image/png', 1, ?) returning message_id")) {
            s.setString(1, body);
            s.setString(2, UUID.randomUUID().toString().replace("-", ""));
            s.setObject(3, utc(createdAt));
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return r.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * An outbox row for the message, due at {@code due}, under the lease {@code owner} (none when null) until
     * {@code leaseUntil}, with the event the service would have written (or {@code payload}); its id.
     */
    public static String insert(long messageId, Instant storedAt, String payload, String requestId, Instant due,
            String owner, Instant leaseUntil, int attempts, String lastError) {
        String id = TimeOrderedIds.next();
        update("insert into hook_outbox (id, message_id, payload, request_id, stored_at, attempts, next_attempt_at,"
                + " lease_owner, lease_until, last_error) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", UUID.fromString(id),
                messageId,
                payload != null ? payload : "{\"account_id\":\"account-1\",\"message_id\":" + messageId + "}",
                requestId, utc(storedAt), attempts, utc(due), owner, leaseUntil == null ? null : utc(leaseUntil),
                lastError);
        return id;
    }

    /** A due event of a new message. */
    public static String due(String body, String payload, String requestId) {
        Instant now = Instant.now();
        return insert(message(body, now), now, payload, requestId, now.minusSeconds(1), null, null, 0, null);
    }

    /** A message logged at {@code logged} whose event failed seven posts and waits an hour for the next. */
    static String stuckEvent(String body, Instant logged) {
        return insert(message(body, logged), logged, null, null, Instant.now().plus(Duration.ofHours(1)), null, null,
                7, "503 from hook-service");
    }

    /** The row; null once it has left the outbox. */
    public static Row row(String id) {
        try (Connection c = dataSource().getConnection();
                PreparedStatement s = c.prepareStatement("select id, message_id, attempts, next_attempt_at,"
                        + " lease_owner, lease_until, last_error from hook_outbox where id = ?")) {
            s.setObject(1, UUID.fromString(id));
            try (ResultSet r = s.executeQuery()) {
                if (!r.next()) {
                    return null;
                }
                OffsetDateTime lease = r.getObject(6, OffsetDateTime.class);
                return new Row(r.getString(1), r.getLong(2), r.getInt(3),
                        r.getObject(4, OffsetDateTime.class).toInstant(), r.getString(5),
                        lease == null ? null : lease.toInstant(), r.getString(7));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Rows of these ids still in the outbox. */
    public static long count(Collection<String> ids) {
        try (Connection c = dataSource().getConnection();
                PreparedStatement s = c.prepareStatement("select count(*) from hook_outbox where id = any(?)")) {
            s.setArray(1, c.createArrayOf("uuid", ids.stream().map(UUID::fromString).toArray()));
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return r.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Rows of the message's event still in the outbox. */
    public static long ofMessage(long messageId) {
        try (Connection c = dataSource().getConnection();
                PreparedStatement s = c.prepareStatement("select count(*) from hook_outbox where message_id = ?")) {
            s.setLong(1, messageId);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return r.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The failed posts recorded on the message's event (0 once it has left the outbox). */
    public static int attemptsOfMessage(long messageId) {
        try (Connection c = dataSource().getConnection();
                PreparedStatement s = c.prepareStatement("select attempts from hook_outbox where message_id = ?")) {
            s.setLong(1, messageId);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? r.getInt(1) : 0;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    static void remove(String id) {
        update("delete from hook_outbox where id = ?", UUID.fromString(id));
    }

    /** Removes the events of these messages from the outbox (as hook-service's acceptance would). */
    public static void remove(java.util.List<Long> messageIds) {
        for (long m : messageIds) {
            update("delete from hook_outbox where message_id = ?", m);
        }
    }

    static int update(String sql, Object... args) {
        try (Connection c = dataSource().getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                s.setObject(i + 1, args[i]);
            }
            return s.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    static OffsetDateTime utc(Instant t) {
        return OffsetDateTime.ofInstant(t, ZoneOffset.UTC);
    }
}
