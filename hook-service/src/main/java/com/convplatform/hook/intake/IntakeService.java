package com.convplatform.hook.intake;

import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

import com.convplatform.hook.delivery.Delivery;
import com.convplatform.support.ApiException;
import com.convplatform.support.RequestIds;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.micrometer.core.instrument.MeterRegistry;

/**
 * Intake (contracts.md): validates an event, stores it and its delivery in one transaction, and only then answers.
 * The same (account_id, message_id) is accepted once.
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

    public IntakeService(Clock clock, ObjectMapper json, MeterRegistry metrics) {
        this.clock = clock;
        this.json = json;
        this.metrics = metrics;
    }

    /** Validates; throws {@link ApiException} 400 naming the field. */
    public Map<String, Object> validate(JsonNode in) {
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
        payload.put("__account_id", accountId);
        return payload;
    }

    @Transactional
    public Accepted accept(Map<String, Object> validated) {
        String accountId = (String) validated.remove("__account_id");
        long messageId = (Long) validated.get("message_id");
        Optional<HookEvent> existing = find(accountId, messageId);
        if (existing.isPresent()) {
            return new Accepted(existing.get().id, true);
        }
        Instant now = clock.instant();
        HookEvent e = new HookEvent();
        e.id = UUID.randomUUID().toString();
        e.accountId = accountId;
        e.messageId = messageId;
        try {
            e.payload = json.writeValueAsString(validated);
        } catch (JsonProcessingException ex) {
            throw new IllegalStateException(ex);
        }
        e.receivedAt = now;
        e.requestId = RequestIds.current();
        e.persist();
        Delivery d = new Delivery();
        d.id = UUID.randomUUID().toString();
        d.eventId = e.id;
        d.accountId = accountId;
        d.status = Delivery.PENDING;
        d.attempts = 0;
        d.nextAttemptAt = now;
        d.createdAt = now;
        d.persist();
        metrics.counter("hook.events.accepted").increment();
        return new Accepted(e.id, false);
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
