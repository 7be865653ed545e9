package com.convplatform.api.hook;

import java.util.List;
import java.util.Map;

import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * hook-service's erasure of an upload user's deliveries ({@code POST /internal/v1/erasures}), which upload-service calls
 * for a privacy request: the request names the messages, the answer counts the rows removed by table.
 */
public final class HookErasure {
    public static final int MAX_MESSAGES = 10_000;

    private HookErasure() {
    }

    public record Erasure(
            @JsonProperty("account_id") @NotNull(message = "MISSING_FIELD: 'account_id' is required") @Size(min = 1, max = 64, message = "MISSING_FIELD: 'account_id' is 1 to 64 characters") @Schema(example = "0b7c6f1e-3a52-4d0e-9a7e-2f1c9d4e8a10") String accountId,
            @JsonProperty("message_ids") @NotNull(message = "MISSING_FIELD: 'message_ids' is required") @Size(max = MAX_MESSAGES, message = "TOO_MANY_MESSAGES: at most 10000 message ids per call") List<@NotNull Long> messageIds) {
    }

    public record Erased(
            @JsonProperty("removed") @Schema(description = "Rows removed, by table", example = "{\"delivery_queue\":0,\"delivery_history\":3,\"delivery_attempt\":4,\"dead_letter\":0}") Map<String, Integer> removed) {
    }
}
