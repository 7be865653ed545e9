package com.convplatform.upload.handoff;

import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;

import com.convplatform.api.intake.IntakeEvent;
import com.convplatform.support.LeaseQueue;
import com.convplatform.support.LocalTransaction;
import com.convplatform.support.TimeOrderedIds;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The SQL of the outbox ({@code hook_outbox}), through service-support's lease engine: the uploads write their events
 * claimed, the sender claims, removes and backs off, and at shutdown hands back what this replica holds.
 */
@ApplicationScoped
public class OutboxRepository {
    public static final Duration LEASE = Duration.ofSeconds(60);
    /** Written already claimed by this replica (handed on from memory straight after the commit), due at once. */
    private static final String INSERT_CLAIMED = "insert into hook_outbox (id, message_id, payload, request_id,"
            + " next_attempt_at, lease_owner, lease_until, traceparent, stored_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)";
    private static final String RECORD_FAILURE = "update hook_outbox set attempts = ?, next_attempt_at = ?,"
            + " last_error = ?, lease_owner = null, lease_until = null where id = ? and lease_owner = ?";

    private final Clock clock;
    private final ObjectMapper json;
    private final DataSource dataSource;
    /** The outbox table's lease engine (service-support's, as hook-service's queue). */
    private final LeaseQueue queue = new LeaseQueue("hook_outbox", "true",
            "t.id, t.payload, t.request_id, t.traceparent, t.stored_at, t.attempts");

    public OutboxRepository(Clock clock, ObjectMapper json, DataSource dataSource) {
        this.clock = clock;
        this.json = json;
        this.dataSource = dataSource;
    }

    /** An event to write, stored and due {@code at}. */
    public record ToHandOn(IntakeEvent event, String traceparent, Instant at) {
    }

    /** A new lease of this replica. */
    String newLease() {
        return queue.owner();
    }

    /**
     * Writes events in the caller's transaction under one new lease, so no poll takes them while the sender hands them
     * on ({@link OutboxSender#handOn}); returns them as claimed, in order.
     */
    public List<Claimed> insertClaimed(Connection c, List<ToHandOn> events) throws SQLException {
        String lease = newLease();
        List<Claimed> out = new ArrayList<>(events.size());
        try (PreparedStatement s = c.prepareStatement(INSERT_CLAIMED)) {
            for (ToHandOn e : events) {
                Claimed claimed = new Claimed(TimeOrderedIds.next(), e.event(), e.traceparent(), e.at(), 1, lease);
                LocalTransaction.bind(s, UUID.fromString(claimed.id()), e.event().messageId(), serialised(e.event()),
                        e.event().requestId(), utc(e.at()), lease, utc(e.at().plus(LEASE)), e.traceparent(),
                        utc(e.at()))
                        .addBatch();
                out.add(claimed);
            }
            s.executeBatch();
        }
        return out;
    }

    /** The stored row: the event serialised once, as it is posted (less the traceparent of its hand-off span). */
    private String serialised(IntakeEvent event) {
        try {
            return json.writeValueAsString(event);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Serialising the hand-off event failed", e);
        }
    }

    /** Claims up to {@code max} due events under a lease of this replica (service-support's LeaseQueue). */
    List<Claimed> claim(int max) {
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        return LocalTransaction.run(dataSource, "Claiming hand-off events",
                c -> queue.claim(c, now, now.plus(LEASE), max, (r, owner, until) -> {
                    OffsetDateTime storedAt = r.getObject(5, OffsetDateTime.class);
                    return new Claimed(r.getString(1), event(r.getString(2), r.getString(3)), r.getString(4),
                            storedAt == null ? null : storedAt.toInstant(), r.getInt(6) + 1, owner);
                }));
    }

    /**
     * The stored event with its row's request id (rows written before the request id went into the payload lack it). A
     * row that is not an event goes without its fields, for hook-service to refuse (MISSING_FIELD): the failure is
     * recorded on the row.
     */
    private IntakeEvent event(String payload, String requestId) {
        try {
            IntakeEvent stored = json.readValue(payload, IntakeEvent.class);
            return requestId == null || stored.requestId() != null
                    ? stored
                    : stored.withBatchFields(requestId, stored.traceparent());
        } catch (IOException e) {
            return new IntakeEvent(null, null, null, null, null, null, null, null, null, null);
        }
    }

    /**
     * Removes accepted events in a local transaction (a JTA one took a sixth of the hand-off thread's time), by the
     * lease engine's guarded delete.
     */
    void remove(List<String> sent) {
        if (sent.isEmpty()) {
            return;
        }
        List<UUID> ids = sent.stream().map(UUID::fromString).toList();
        LocalTransaction.run(dataSource, "Removing sent hand-off events", c -> queue.remove(c, ids));
    }

    /** The failed events wait for their backoff (1 s doubling to 5 min), their leases given up. */
    void recordFailures(List<Claimed> events, Map<String, String> errors) {
        Instant now = clock.instant();
        LocalTransaction.run(dataSource, "Recording failed hand-offs", c -> {
            LeaseQueue.guardPlans(c); // by the key, whatever the statistics say
            try (PreparedStatement s = c.prepareStatement(RECORD_FAILURE)) {
                for (Claimed e : events) {
                    String error = errors.get(e.id());
                    long wait = Math.min(300, 1L << Math.min(e.attempt() - 1, 9));
                    LocalTransaction
                            .bind(s, e.attempt(), utc(now.plusSeconds(wait)),
                                    error.length() > 1000 ? error.substring(0, 1000) : error, UUID.fromString(e.id()),
                                    e.leaseOwner())
                            .addBatch();
                }
                return s.executeBatch();
            }
        });
    }

    /**
     * Every unsent event this process still holds: free for any replica's poll at once (due when it was). The outbox
     * holds only what waits, so it is read whole, once per shutdown.
     */
    int releaseHeld() {
        return queue.releaseOwned(dataSource, clock.instant());
    }

    /** How many events wait, and when the oldest one's message was logged (null when none). */
    public record Oldest(long count, Instant since) {
        /** How long the oldest has waited at {@code now}; zero when none waits. */
        public Duration age(Instant now) {
            return since == null || since.isAfter(now) ? Duration.ZERO : Duration.between(since, now);
        }
    }

    /** The outbox's size and its oldest event's time (an event's wait starts when its message was logged). */
    Oldest oldest() {
        return LocalTransaction.run(dataSource, "Reading the outbox's oldest event", c -> {
            try (PreparedStatement q = c.prepareStatement("select count(*), min(stored_at) from hook_outbox");
                    ResultSet r = q.executeQuery()) {
                r.next();
                OffsetDateTime since = r.getObject(2, OffsetDateTime.class);
                return new Oldest(r.getLong(1), since == null ? null : since.toInstant());
            }
        });
    }

    /** A waiting event's failed posts so far and the last one's error (null when it has none). */
    record Failure(int attempts, String lastError) {
    }

    /** The failures of the event stored at {@code since} that has been tried most; empty when none is left. */
    Optional<Failure> oldestFailure(Instant since) {
        return LocalTransaction.run(dataSource, "Reading the oldest event's failures", c -> {
            try (PreparedStatement q = c.prepareStatement("select attempts, last_error from hook_outbox"
                    + " where stored_at = ? order by attempts desc limit 1")) {
                q.setObject(1, utc(since));
                try (ResultSet r = q.executeQuery()) {
                    return r.next() ? Optional.of(new Failure(r.getInt(1), r.getString(2))) : Optional.empty();
                }
            }
        });
    }

    /** Vacuums the outbox table (service-support's LeaseQueue); whether it ran. */
    public boolean vacuum() {
        return queue.vacuum(dataSource);
    }

    private static OffsetDateTime utc(Instant instant) {
        return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
    }
}
