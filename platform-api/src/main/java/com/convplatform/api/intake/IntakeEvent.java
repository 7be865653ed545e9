package com.convplatform.api.intake;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.PositiveOrZero;
import jakarta.validation.constraints.Size;

import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * One event at hook-service's intake ({@code POST /internal/v1/events}, and each of a batch), as upload-service builds
 * and stores it and hook-service binds it (docs/contracts.md). The wire order is request_id first, traceparent last;
 * without {@link #BATCH_ONLY} and {@code account_id} it is the delivered hook's body (spec 2.2, in its order).
 * {@code metadata} binds any JSON value (a Map for an object), so that one of another type is refused by validation,
 * in the order of the other refusals; {@code traceparent} any JSON value (one that is not a string is ignored).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"request_id", "account_id", "user_id", "conversation_number", "message_body", "message_id",
        "sender",
        "timestamp", "metadata", "traceparent"})
public record IntakeEvent(
        @JsonProperty("request_id") @Size(max = 64, message = "INVALID_REQUEST_ID: request_id must be a string of at most {max} characters") @Schema(description = "Batch intake only: the request id of this event's deliveries when it comes without a traceparent (with one, its trace id is the request id)", example = "4bf92f3577b34da6a3ce929d0e0e4736") String requestId,
        @JsonProperty("account_id") @NotEmpty(message = "MISSING_FIELD: 'account_id' is required and must be a non-empty string") @Size(max = 64, message = "FIELD_TOO_LONG: 'account_id' is longer than {max} characters") @Schema(example = "0b7c6f1e-3a52-4d0e-9a7e-2f1c9d4e8a10") String accountId,
        @JsonProperty("user_id") @NotEmpty(message = "MISSING_FIELD: 'user_id' is required and must be a non-empty string") @Size(max = 256, message = "FIELD_TOO_LONG: 'user_id' is longer than {max} characters") @Schema(example = "u42") String userId,
        @JsonProperty("conversation_number") @NotNull(message = "MISSING_FIELD: 'conversation_number' is required and must be a non-negative integer") @PositiveOrZero(message = "MISSING_FIELD: 'conversation_number' is required and must be a non-negative integer") @Schema(example = "7") Long conversationNumber,
        @JsonProperty("message_body") @NotEmpty(message = "MISSING_FIELD: 'message_body' is required and must be a non-empty string") @Size(max = 65536, message = "FIELD_TOO_LONG: 'message_body' is longer than {max} characters") @Schema(example = "{\"text\":\"hi\",\"type\":\"TEXT\",\"data\":{\"quick_replies\":[]}}") String messageBody,
        @JsonProperty("message_id") @NotNull(message = "MISSING_FIELD: 'message_id' is required and must be a non-negative integer") @PositiveOrZero(message = "MISSING_FIELD: 'message_id' is required and must be a non-negative integer") @Schema(example = "123") Long messageId,
        @JsonProperty("sender") @NotEmpty(message = "MISSING_FIELD: 'sender' is required and must be a non-empty string") @Size(max = 64, message = "FIELD_TOO_LONG: 'sender' is longer than {max} characters") @Schema(example = "user") String sender,
        @JsonProperty("timestamp") @NotEmpty(message = "MISSING_FIELD: 'timestamp' is required and must be a non-empty string") @Size(max = 64, message = "FIELD_TOO_LONG: 'timestamp' is longer than {max} characters") @Schema(example = "2026-11-22T10:00:00.000Z") String timestamp,
        @JsonProperty("metadata") @Schema(type = SchemaType.OBJECT, description = "A JSON object, delivered as it is", example = "{\"channel\": \"web\"}") Object metadata,
        @JsonProperty("traceparent") @Schema(type = SchemaType.STRING, description = "Batch intake: the W3C trace context of this event (its upload's), continued by its delivery instead of the call's traceparent header; one that is not a valid traceparent is ignored", example = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01") Object traceparent) {

    /** The fields of a batch's event that are not part of the delivered hook (nor is {@code account_id}). */
    public static final String[] BATCH_ONLY = {"request_id", "traceparent"};
    /**
     * UTC with a capital Z, as spec 2.2 asks; Instant.parse alone also takes an offset ({@code +02:00}) and a lower-case
     * {@code t} or {@code z}, which would reach receivers as they came.
     */
    private static final Pattern UTC_TIME = Pattern.compile("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?Z");

    public IntakeEvent {
        metadata = metadata == null ? new LinkedHashMap<>() : metadata;
    }

    /** This event with the batch-only fields replaced (null: left out). */
    public IntakeEvent withBatchFields(String requestId, Object traceparent) {
        return new IntakeEvent(requestId, accountId, userId, conversationNumber, messageBody, messageId, sender,
                timestamp, metadata, traceparent);
    }

    /** Not validated here: one that is not a valid traceparent is ignored, as W3C says of a header, never refused. */
    public String traceparentText() {
        return traceparent instanceof String text ? text : null;
    }

    @JsonIgnore
    @AssertTrue(message = "INVALID_TIMESTAMP: timestamp must be an ISO 8601 UTC time such as 2026-11-22T10:00:00.000Z")
    public boolean isTimestampValid() {
        if (timestamp == null || timestamp.isEmpty()) {
            return true;
        }
        if (!UTC_TIME.matcher(timestamp).matches()) {
            return false;
        }
        try {
            // The usual time, its fields read as digits: Instant.parse's formatter was 2.3 % of hook-service's JFR samples
            LocalDateTime.of(digits(0, 4), digits(5, 7), digits(8, 10), digits(11, 13), digits(14, 16),
                    digits(17, 19));
            return true;
        } catch (DateTimeException unusual) {
            try {
                return Instant.parse(timestamp) != null; // decides the rest as before (it takes 24:00 and 23:59:60)
            } catch (DateTimeParseException e) {
                return false;
            }
        }
    }

    private int digits(int from, int to) {
        int n = 0;
        for (int i = from; i < to; i++) {
            n = n * 10 + timestamp.charAt(i) - '0';
        }
        return n;
    }

    @JsonIgnore
    @AssertTrue(message = "INVALID_METADATA: metadata must be a JSON object")
    public boolean isMetadataValid() {
        return metadata instanceof Map;
    }
}
