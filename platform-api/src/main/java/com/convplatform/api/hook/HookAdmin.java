package com.convplatform.api.hook;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import jakarta.validation.constraints.Size;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import com.fasterxml.jackson.annotation.JsonProperty;

/** hook-service's operator API ({@code /admin/v1}): what it answers and takes, as the operator console reads them. */
public final class HookAdmin {
    public static final String EXAMPLE_ACCOUNT = "0b7c6f1e-3a52-4d0e-9a7e-2f1c9d4e8a10";
    static final String EXAMPLE_SIGNATURE_HEADERS = "{\"signature\":\"FNYSR+2Jp1f8toQJAPDQ6JRcqwE7jWAyINnGLoi4/uqXkQ1RxU"
            + "SzcIMAF6oCHkKMr+Mnq4b6SNoIrgzkIuxcNgP+0596dYGSZ5Ho8hxZmMe8nh/P5saiGikXMK5EUHZ4JIBaM/QwtGh/WoPcxvYZuaN+WZgXPIX"
            + "SXgb6cQOLeKxBb1roUI7h0Foe4oZLB65wb+QtEUPTJhKZf7woHm2si9eO2kTl+XNc+2XMTJHDy0HRQ4NfSjmKWxE2Bi9aD/gzATrHsak9LOz4Ha"
            + "qFm28ZUQ2xqH5/Fe3FYfd3DzZsYldcLQD4ZKgVHmc+Rceo/Ju1qN/bc45JN6k5kE2z6Szyjg==\",\"signature-certificate-url\":"
            + "\"https://hooks.platform.example/platform/hooks/certificate/\"}";

    private HookAdmin() {
    }

    public record DeliveryView(
            @JsonProperty("delivery_id") @Schema(example = "0193a5b2c4d6e8f0a1b2c3d4e5f60718") String deliveryId,
            @JsonProperty("event_id") @Schema(example = "0193a5b2c4d6e8f0112233445566778") String eventId,
            @JsonProperty("account_id") @Schema(example = EXAMPLE_ACCOUNT) String accountId,
            @JsonProperty("status") @Schema(enumeration = {
                    "PENDING", "DELIVERED", "DEAD"}) String status,
            @JsonProperty("attempts") int attempts, @JsonProperty("next_attempt_at") Instant nextAttemptAt,
            @JsonProperty("last_error") @Schema(example = "HTTP 503") String lastError,
            @JsonProperty("delivered_at") Instant deliveredAt, @JsonProperty("created_at") Instant createdAt){
    }

    /** {@code attemptHistory}: every attempt in the order they were made; null from a hook-service before it. */
    public record DeliveryDetail(@JsonProperty("delivery_id") String deliveryId,
            @JsonProperty("event_id") String eventId, @JsonProperty("account_id") String accountId,
            @JsonProperty("message_id") @Schema(example = "4711") long messageId,
            @JsonProperty("status") @Schema(enumeration = {
                    "PENDING", "DELIVERED", "DEAD"}) String status,
            @JsonProperty("attempts") int attempts, @JsonProperty("next_attempt_at") Instant nextAttemptAt,
            @JsonProperty("last_error") String lastError, @JsonProperty("delivered_at") Instant deliveredAt,
            @JsonProperty("created_at") Instant createdAt,
            @JsonProperty("request_id") @Schema(description = "The request id of the event: the trace id of its upload's trace, which its deliveries continue") String requestId,
            @JsonProperty("payload") @Schema(description = "The event as accepted: the JSON body every attempt signs and sends (with its own"
                    + " signature_timestamp added last)") String payload,
            @JsonProperty("attempt_history") @Schema(description = "Every attempt, in the order they were made, each with the signature headers it"
                    + " sent (as GET /admin/v1/deliveries/{id}/attempts)") List<AttemptView> attemptHistory){
    }

    /** {@code signatureHeaders}: empty when none were recorded, null from a hook-service before it recorded them. */
    public record AttemptView(
            @JsonProperty("attempt") @Schema(description = "1, 2, ...; numbers go on after an operator's retry or replay") int attempt,
            @JsonProperty("started_at") Instant startedAt, @JsonProperty("latency_ms") long latencyMs,
            @JsonProperty("status_code") @Schema(example = "200", description = "None when no answer came") Integer statusCode,
            @JsonProperty("error") @Schema(example = "timed out after 10000 ms") String error,
            @JsonProperty("signature_headers") @Schema(description = "The signature headers this attempt's request carried, name to value exactly as sent"
                    + " (each attempt is signed afresh, over a body with its own signature_timestamp). Not secret: a"
                    + " signature and the public certificate URL. An empty object when none were recorded: attempts"
                    + " made before hook-service stored them, and attempts that sent no request (the error says why:"
                    + " the account lookup failed, the address was refused)", example = EXAMPLE_SIGNATURE_HEADERS) Map<String, String> signatureHeaders) {
    }

    public record EndpointView(@JsonProperty("account_id") @Schema(example = EXAMPLE_ACCOUNT) String accountId,
            @JsonProperty("enabled") boolean enabled, @JsonProperty("consecutive_failures") int consecutiveFailures,
            @JsonProperty("failing_since") Instant failingSince, @JsonProperty("last_failure_at") Instant lastFailureAt,
            @JsonProperty("disabled_at") Instant disabledAt,
            @JsonProperty("disabled_by") @Schema(enumeration = {
                    "rule", "operator"}) String disabledBy,
            @JsonProperty("disabled_reason") @Schema(example = "receiver under maintenance") String disabledReason,
            @JsonProperty("held_deliveries") long heldDeliveries){
    }

    public record DisableRequest(
            @JsonProperty("reason") @Size(max = 500, message = "INVALID_REASON: reason is at most 500 characters") @Schema(example = "receiver under maintenance") String reason) {
    }

    public record Replayed(@JsonProperty("account_id") @Schema(example = EXAMPLE_ACCOUNT) String accountId,
            @JsonProperty("requeued") @Schema(example = "12") int requeued) {
    }

    public record Summary(@JsonProperty("at") Instant at,
            @JsonProperty("last_hour") @Schema(description = "The last hour: deliveries delivered and dead-lettered (from the start of the hour it"
                    + " began in), and deliveries created since and still pending", example = "{\"PENDING\":2,\"DELIVERED\":118,\"DEAD\":1}") Map<String, Long> lastHour,
            @JsonProperty("last_day") @Schema(description = "The same over the last 24 hours") Map<String, Long> lastDay,
            @JsonProperty("pending") @Schema(description = "Every pending delivery, whenever created") long pending,
            @JsonProperty("held") @Schema(description = "Pending deliveries of disabled endpoints: held, not attempted") long held,
            @JsonProperty("dead") @Schema(description = "Every dead-lettered delivery") long dead,
            @JsonProperty("oldest_undelivered_at") @Schema(description = "When the oldest pending delivery was created; none when nothing is pending") Instant oldestUndeliveredAt,
            @JsonProperty("oldest_undelivered_id") String oldestUndeliveredId,
            @JsonProperty("disabled_count") @Schema(description = "How many endpoints are disabled, by rule or by an operator") long disabledCount,
            @JsonProperty("disabled_endpoints") @Schema(description = "The disabled endpoints, longest disabled first (at most 100)") List<EndpointView> disabledEndpoints,
            @JsonProperty("hours") @Schema(description = "The last 24 hours, hour by hour (UTC), oldest first, every hour listed (zeros"
                    + " included): what the console's chart draws") List<HourView> hours) {
    }

    /** One hour of the last 24 (UTC, oldest first): delivered, failed attempts, dead-lettered. */
    public record HourView(@JsonProperty("hour") @Schema(example = "2026-11-22T10:00:00Z") Instant hour,
            @JsonProperty("delivered") @Schema(description = "Deliveries delivered in that hour", example = "118") long delivered,
            @JsonProperty("failed_attempts") @Schema(description = "Attempts that failed in that hour (each retried or dead-lettered)", example = "4") long failedAttempts,
            @JsonProperty("dead") @Schema(description = "Deliveries dead-lettered in that hour", example = "1") long dead) {
    }
}
