package com.convplatform.hook.intake;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;

import com.convplatform.hook.delivery.DeliveryWorker;
import com.convplatform.support.LocalTransaction;
import com.convplatform.support.TimeOrderedIds;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Intake (contracts.md): stores each valid event and its delivery in one transaction, and only then is it answered.
 * The same (account_id, message_id) is accepted once. Events that arrive together share a transaction (see
 * {@link IntakeResource}); once it is committed, the delivery worker claims the new deliveries at once.
 */
@ApplicationScoped
public class IntakeService {
    /** The outcome: the event id, and whether it had been accepted before. */
    public record Accepted(String eventId, boolean duplicate) {
    }

    /**
     * A valid event: the account, the message id, the payload to deliver (spec 2.2 JSON without
     * signature_timestamp), and the request id to log with its delivery.
     */
    public record Valid(String accountId, long messageId, String payload, String requestId) {
    }

    private static final String FIND_EVENT = "select id from hook_event where account_id = ? and message_id = ?";
    private static final String INSERT_EVENT = "insert into hook_event"
            + " (id, account_id, message_id, payload, received_at, request_id) values (?, ?, ?, ?, ?, ?)";
    private static final String INSERT_DELIVERY = "insert into delivery (id, event_id, account_id, status, attempts,"
            + " next_attempt_at, created_at) values (?, ?, ?, 'PENDING', 0, ?, ?)";

    private final Clock clock;
    private final DataSource dataSource;
    private final DeliveryWorker worker;
    private final Counter accepted;

    public IntakeService(Clock clock, MeterRegistry metrics, DataSource dataSource, DeliveryWorker worker) {
        this.clock = clock;
        this.dataSource = dataSource;
        this.worker = worker;
        this.accepted = metrics.counter("hook.events.accepted");
    }

    /**
     * Stores each event with its delivery, due now, in one transaction for all (all or none), unless the same
     * (account_id, message_id) was accepted before or earlier in the list; returns one outcome per event, in order.
     * Plain JDBC in a {@link LocalTransaction}: this runs for every event.
     */
    public List<Accepted> acceptAll(List<Valid> events) {
        OffsetDateTime now = OffsetDateTime.ofInstant(clock.instant(), ZoneOffset.UTC);
        List<Accepted> out = LocalTransaction.run(dataSource, "Storing the events", c -> {
            List<Accepted> stored = new ArrayList<>(events.size());
            Map<String, String> inThisBatch = new HashMap<>();
            try (PreparedStatement find = c.prepareStatement(FIND_EVENT);
                    PreparedStatement event = c.prepareStatement(INSERT_EVENT);
                    PreparedStatement delivery = c.prepareStatement(INSERT_DELIVERY)) {
                for (Valid v : events) {
                    String earlier = inThisBatch.get(v.accountId() + '\n' + v.messageId());
                    String existing = earlier != null ? earlier : find(find, v.accountId(), v.messageId());
                    if (existing != null) {
                        stored.add(new Accepted(existing, true));
                        continue;
                    }
                    String id = TimeOrderedIds.next();
                    inThisBatch.put(v.accountId() + '\n' + v.messageId(), id);
                    stored.add(new Accepted(id, false));
                    event.setString(1, id);
                    event.setString(2, v.accountId());
                    event.setLong(3, v.messageId());
                    event.setString(4, v.payload());
                    event.setObject(5, now);
                    event.setString(6, v.requestId());
                    event.addBatch();
                    delivery.setString(1, TimeOrderedIds.next());
                    delivery.setString(2, id);
                    delivery.setString(3, v.accountId());
                    delivery.setObject(4, now);
                    delivery.setObject(5, now);
                    delivery.addBatch();
                }
                if (!inThisBatch.isEmpty()) {
                    event.executeBatch();
                    delivery.executeBatch();
                }
            }
            return stored;
        });
        long fresh = out.stream().filter(a -> !a.duplicate()).count();
        if (fresh > 0) {
            accepted.increment(fresh);
            worker.wake();
        }
        return out;
    }

    /**
     * {@link #acceptAll} for the group-commit writer: should one event alone fail because the same event was stored
     * meanwhile by another replica (the unique constraint let that one in), it is answered as that one's duplicate.
     */
    public List<Accepted> acceptAllOrFind(List<Valid> events) {
        try {
            return acceptAll(events);
        } catch (RuntimeException e) {
            Valid v = events.get(0);
            Optional<String> raced = events.size() == 1 ? find(v.accountId(), v.messageId()) : Optional.empty();
            return List.of(new Accepted(raced.orElseThrow(() -> e), true));
        }
    }

    private static String find(PreparedStatement find, String accountId, long messageId) throws SQLException {
        find.setString(1, accountId);
        find.setLong(2, messageId);
        try (ResultSet r = find.executeQuery()) {
            return r.next() ? r.getString(1) : null;
        }
    }

    /** The event accepted earlier with this (account_id, message_id), if any. */
    private Optional<String> find(String accountId, long messageId) {
        try (Connection c = dataSource.getConnection(); PreparedStatement find = c.prepareStatement(FIND_EVENT)) {
            return Optional.ofNullable(find(find, accountId, messageId));
        } catch (SQLException e) {
            throw new IllegalStateException("Looking up the event failed", e);
        }
    }
}
