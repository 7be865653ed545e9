package com.convplatform.hook.intake;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

import com.convplatform.hook.delivery.DeliveryStore;
import com.convplatform.hook.delivery.DeliveryWorker;
import com.convplatform.support.AfterCommit;
import com.convplatform.support.ApiException;
import com.convplatform.support.RequestIds;
import com.convplatform.support.TimeOrderedIds;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Intake (contracts.md): validates an event, stores it and its delivery in one transaction, and only then answers.
 * The same (account_id, message_id) is accepted once. Events that arrive together share a transaction (see
 * {@link IntakeResource}).
 */
@ApplicationScoped
public class IntakeService {
    static final int MAX_MESSAGE_BODY = 64 * 1024;

    /** The outcome: the event id, and whether it had been accepted before. */
    public record Accepted(String eventId, boolean duplicate) {
    }

    private final Clock clock;
    private final ObjectMapper json;
    private final MeterRegistry metrics;
    private final AfterCommit afterCommit;
    private final DataSource dataSource;
    private final DeliveryStore store;
    private final DeliveryWorker worker;

    public IntakeService(Clock clock, ObjectMapper json, MeterRegistry metrics, AfterCommit afterCommit,
            DataSource dataSource, DeliveryStore store, DeliveryWorker worker) {
        this.clock = clock;
        this.json = json;
        this.metrics = metrics;
        this.afterCommit = afterCommit;
        this.dataSource = dataSource;
        this.store = store;
        this.worker = worker;
    }

    /** A valid event: the account, the message id, the payload to deliver, and the intake call's request id. */
    public record Valid(String accountId, long messageId, Map<String, Object> payload, String requestId) {
    }

    /** Validates an event of the intake call itself; throws {@link ApiException} 400 naming the field. */
    public Valid validate(JsonNode in) {
        return validate(in, RequestIds.current());
    }

    /**
     * Validates; throws {@link ApiException} 400 naming the field. {@code requestId} is logged with the delivery (the
     * intake call's, or the one a batch gives for the event).
     */
    public Valid validate(JsonNode in, String requestId) {
        if (in == null || !in.isObject()) {
            throw bad("INVALID_EVENT", "The event must be a JSON object");
        }
        String accountId = text(in, "account_id", 64);
        String userId = text(in, "user_id", 256);
        long conversation = integer(in, "conversation_number");
        String messageBody = text(in, "message_body", MAX_MESSAGE_BODY);
        long messageId = integer(in, "message_id");
        String sender = text(in, "sender", 64);
        String timestamp = text(in, "timestamp", 64);
        try {
            Instant.parse(timestamp);
        } catch (DateTimeParseException e) {
            throw bad("INVALID_TIMESTAMP", "timestamp must be an ISO 8601 UTC time such as 2026-11-22T10:00:00.000Z");
        }
        JsonNode metadata = in.get("metadata");
        if (metadata != null && !metadata.isNull() && !metadata.isObject()) {
            throw bad("INVALID_METADATA", "metadata must be a JSON object");
        }
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put("user_id", userId);
        payload.put("conversation_number", conversation);
        payload.put("message_body", messageBody);
        payload.put("message_id", messageId);
        payload.put("sender", sender);
        payload.put("timestamp", timestamp);
        payload.put("metadata", metadata == null || metadata.isNull() ? Map.of() : metadata);
        return new Valid(accountId, messageId, payload, requestId);
    }

    /**
     * Stores each event with its delivery, in one transaction for all (all or none), unless the same (account_id,
     * message_id) was accepted before or earlier in the list; returns one outcome per event, in order.
     *
     * <p>
     * While this replica has room ({@link DeliveryWorker#reserve}), the new deliveries are stored already leased to
     * it and handed to its worker once the transaction commits, so an event is delivered without a claim: one
     * transaction fewer per event. Should this replica stop before sending them, the lease runs out and any replica
     * claims them. Deliveries it has no room for are stored due now, for the next claim. Plain JDBC on the
     * transaction's connection: this runs for every event.
     */
    @Transactional
    public List<Accepted> acceptAll(List<Valid> events) {
        List<Accepted> out = new ArrayList<>(events.size());
        Map<String, String> inThisBatch = new HashMap<>();
        Instant now = clock.instant();
        OffsetDateTime at = OffsetDateTime.ofInstant(now, ZoneOffset.UTC);
        List<DeliveryStore.Claimed> leased = new ArrayList<>();
        int accepted;
        try (Connection c = dataSource.getConnection();
                PreparedStatement find = c.prepareStatement(FIND_EVENT);
                PreparedStatement event = c.prepareStatement(INSERT_EVENT);
                PreparedStatement delivery = c.prepareStatement(INSERT_DELIVERY)) {
            List<Valid> fresh = new ArrayList<>(events.size());
            for (Valid v : events) {
                String key = v.accountId() + '\n' + v.messageId();
                String earlier = inThisBatch.get(key);
                if (earlier != null) {
                    out.add(new Accepted(earlier, true));
                    continue;
                }
                String existing = find(find, v.accountId(), v.messageId());
                if (existing != null) {
                    out.add(new Accepted(existing, true));
                    continue;
                }
                String id = TimeOrderedIds.next();
                inThisBatch.put(key, id);
                out.add(new Accepted(id, false));
                fresh.add(v);
            }
            accepted = fresh.size();
            // The deliveries of a disabled endpoint are held (stored, not leased) until an operator enables it.
            Set<String> disabled = disabled(c, fresh);
            if (!disabled.isEmpty()) {
                fresh.sort(Comparator.comparing(v -> disabled.contains(v.accountId())));
            }
            int enabled = (int) fresh.stream().filter(v -> !disabled.contains(v.accountId())).count();
            int direct = worker.reserve(enabled);
            int unleased = enabled - direct;
            DeliveryStore.Lease lease = direct > 0 ? store.newLease(now) : null;
            afterCommit.run(() -> worker.handOver(leased, unleased), () -> worker.unreserve(direct));
            int i = 0;
            for (Valid v : fresh) {
                String eventId = inThisBatch.get(v.accountId() + '\n' + v.messageId());
                String payload = payload(v);
                event.setString(1, eventId);
                event.setString(2, v.accountId());
                event.setLong(3, v.messageId());
                event.setString(4, payload);
                event.setObject(5, at);
                event.setString(6, v.requestId());
                event.addBatch();
                String deliveryId = TimeOrderedIds.next();
                boolean mine = i++ < direct;
                delivery.setString(1, deliveryId);
                delivery.setString(2, eventId);
                delivery.setString(3, v.accountId());
                // A delivery leased to this replica becomes due again when its lease ends, as a claimed one does.
                delivery.setObject(4, mine ? OffsetDateTime.ofInstant(lease.until(), ZoneOffset.UTC) : at);
                delivery.setString(5, mine ? lease.owner() : null);
                delivery.setObject(6, mine ? OffsetDateTime.ofInstant(lease.until(), ZoneOffset.UTC) : null);
                delivery.setObject(7, at);
                delivery.addBatch();
                if (mine) {
                    leased.add(new DeliveryStore.Claimed(deliveryId, v.accountId(), payload, 1, now, lease.owner(),
                            lease.until(), v.requestId()));
                }
            }
            if (accepted > 0) {
                event.executeBatch();
                delivery.executeBatch();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Storing the events failed", e);
        }
        if (accepted > 0) {
            Counter counter = metrics.counter("hook.events.accepted");
            int n = accepted;
            afterCommit.run(() -> counter.increment(n));
        }
        return out;
    }

    private static final String FIND_EVENT = "select id from hook_event where account_id = ? and message_id = ?";
    private static final String INSERT_EVENT = "insert into hook_event"
            + " (id, account_id, message_id, payload, received_at, request_id) values (?, ?, ?, ?, ?, ?)";
    private static final String INSERT_DELIVERY = "insert into delivery (id, event_id, account_id, status, attempts,"
            + " next_attempt_at, lease_owner, lease_until, created_at) values (?, ?, ?, 'PENDING', 0, ?, ?, ?, ?)";

    /** Those of the events' accounts whose endpoint is disabled (by primary key: the table is small anyway). */
    private static Set<String> disabled(Connection c, List<Valid> events) throws SQLException {
        Set<String> accounts = new LinkedHashSet<>();
        events.forEach(v -> accounts.add(v.accountId()));
        Set<String> out = new HashSet<>();
        if (accounts.isEmpty()) {
            return out;
        }
        try (PreparedStatement s = c.prepareStatement("select account_id from endpoint_state where account_id in ("
                + String.join(",", Collections.nCopies(accounts.size(), "?")) + ") and disabled_at is not null")) {
            int i = 1;
            for (String a : accounts) {
                s.setString(i++, a);
            }
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    out.add(r.getString(1));
                }
            }
        }
        return out;
    }

    private static String find(PreparedStatement find, String accountId, long messageId) throws SQLException {
        find.setString(1, accountId);
        find.setLong(2, messageId);
        try (ResultSet r = find.executeQuery()) {
            return r.next() ? r.getString(1) : null;
        }
    }

    private String payload(Valid v) {
        try {
            return json.writeValueAsString(v.payload());
        } catch (JsonProcessingException ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** The event accepted earlier with this (account_id, message_id), if any. */
    public Optional<String> find(String accountId, long messageId) {
        try (Connection c = dataSource.getConnection(); PreparedStatement find = c.prepareStatement(FIND_EVENT)) {
            return Optional.ofNullable(find(find, accountId, messageId));
        } catch (SQLException e) {
            throw new IllegalStateException("Looking up the event failed", e);
        }
    }

    private static String text(JsonNode in, String field, int max) {
        JsonNode v = in.get(field);
        if (v == null || !v.isTextual() || v.asText().isEmpty()) {
            throw bad("MISSING_FIELD", "'" + field + "' is required and must be a non-empty string");
        }
        if (v.asText().length() > max) {
            throw bad("FIELD_TOO_LONG", "'" + field + "' is longer than " + max + " characters");
        }
        return v.asText();
    }

    private static long integer(JsonNode in, String field) {
        JsonNode v = in.get(field);
        if (v == null || !v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < 0) {
            throw bad("MISSING_FIELD", "'" + field + "' is required and must be a non-negative integer");
        }
        return v.asLong();
    }

    private static ApiException bad(String code, String message) {
        return new ApiException(400, code, message);
    }
}
