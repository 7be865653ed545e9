package com.convplatform.hook.intake;

import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

import com.convplatform.hook.delivery.Delivery;
import com.convplatform.support.AfterCommit;
import com.convplatform.support.ApiException;
import com.convplatform.support.RequestIds;
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

    public IntakeService(Clock clock, ObjectMapper json, MeterRegistry metrics, AfterCommit afterCommit) {
        this.clock = clock;
        this.json = json;
        this.metrics = metrics;
        this.afterCommit = afterCommit;
    }

    /** A valid event: the account, the message id, the payload to deliver, and the intake call's request id. */
    public record Valid(String accountId, long messageId, Map<String, Object> payload, String requestId) {
    }

    /** Validates; throws {@link ApiException} 400 naming the field. */
    public Valid validate(JsonNode in) {
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
        return new Valid(accountId, messageId, payload, RequestIds.current());
    }

    /**
     * Stores each event with its delivery, in one transaction for all (all or none), unless the same (account_id,
     * message_id) was accepted before or earlier in the list; returns one outcome per event, in order.
     */
    @Transactional
    public List<Accepted> acceptAll(List<Valid> events) {
        List<Accepted> out = new ArrayList<>(events.size());
        Map<String, String> inThisBatch = new HashMap<>();
        int accepted = 0;
        for (Valid v : events) {
            String key = v.accountId() + '\n' + v.messageId();
            String earlier = inThisBatch.get(key);
            if (earlier != null) {
                out.add(new Accepted(earlier, true));
                continue;
            }
            Optional<HookEvent> existing = find(v.accountId(), v.messageId());
            if (existing.isPresent()) {
                out.add(new Accepted(existing.get().id, true));
                continue;
            }
            String id = store(v);
            inThisBatch.put(key, id);
            out.add(new Accepted(id, false));
            accepted++;
        }
        if (accepted > 0) {
            Counter counter = metrics.counter("hook.events.accepted");
            int n = accepted;
            afterCommit.run(() -> counter.increment(n));
        }
        return out;
    }

    private String store(Valid v) {
        Instant now = clock.instant();
        HookEvent e = new HookEvent();
        e.id = UUID.randomUUID().toString();
        e.accountId = v.accountId();
        e.messageId = v.messageId();
        try {
            e.payload = json.writeValueAsString(v.payload());
        } catch (JsonProcessingException ex) {
            throw new IllegalStateException(ex);
        }
        e.receivedAt = now;
        e.requestId = v.requestId();
        e.persist();
        Delivery d = new Delivery();
        d.id = UUID.randomUUID().toString();
        d.eventId = e.id;
        d.accountId = v.accountId();
        d.status = Delivery.PENDING;
        d.attempts = 0;
        d.nextAttemptAt = now;
        d.createdAt = now;
        d.persist();
        return e.id;
    }

    public Optional<HookEvent> find(String accountId, long messageId) {
        return HookEvent.find("accountId = ?1 and messageId = ?2", accountId, messageId).firstResultOptional();
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
