package com.convplatform.support.audit;

import java.time.Instant;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/** One recorded operator action, as {@code GET /admin/v1/audit} lists it. */
@Schema(name = "OperatorAction", description = "A state-changing call made with the operator key (or with the internal"
        + " key on an operator's behalf): who, what, on what, when, and how it ended")
@JsonInclude(JsonInclude.Include.ALWAYS)
public record OperatorAction(
        @Schema(description = "Increasing; the cursor of the next page (before_id)", example = "42") long id,
        @Schema(description = "When the call arrived") Instant at,
        @Schema(description = "The key the call was made with", example = "operator-key") String credential,
        @Schema(description = "The person the caller named (X-Operator; the console sends the signed-in operator),"
                + " null when none was named", example = "alice") String operator,
        @Schema(example = "DELETE") String method,
        @Schema(description = "The path as called", example = "/admin/v1/certificate-blocks/3f1a…") String path,
        @Schema(description = "The operation: method and path template", example = "DELETE /admin/v1/certificate-blocks/{sha256}") String action,
        @Schema(description = "What it acted on: the path's parameters, or the id of what it created", example = "sha256=3f1a…") String target,
        @JsonProperty("request_id") @Schema(description = "The request's X-Request-Id, also in the service's log") String requestId,
        @Schema(description = "The caller's address", example = "10.0.3.7") String source,
        @JsonProperty("finished_at") @Schema(description = "When the answer was sent; null when it was not recorded"
                + " (the service stopped during the call)") Instant finishedAt,
        @Schema(description = "The HTTP status of the answer; null as finished_at", example = "204") Integer status,
        @Schema(description = "ok, or the error_code of the refusal; null as finished_at", example = "ok") String outcome) {
}
