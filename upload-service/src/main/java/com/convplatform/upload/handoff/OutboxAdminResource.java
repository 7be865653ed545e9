package com.convplatform.upload.handoff;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;

import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.UriInfo;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import com.convplatform.support.QueryParameters;
import com.convplatform.support.Roles;
import com.convplatform.upload.config.UploadConfig;
import com.fasterxml.jackson.annotation.JsonProperty;

/** The operator API: the hand-off outbox's backlog, as {@link OutboxWatch}'s gauge reads it. */
@Path("/admin/v1/outbox")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed(Roles.OPERATOR)
@Tag(name = "operator", description = "Operator API (Authorization: Bearer <upload.admin.api-key>)")
public class OutboxAdminResource {
    public record OutboxBacklog(
            @JsonProperty("pending") @Schema(description = "Events not yet accepted by hook-service (each one an uploaded"
                    + " message whose hook waits), those being posted now included", example = "3") long pending,
            @JsonProperty("oldest_since") @Schema(description = "When the message of the oldest of them was logged;"
                    + " absent when none waits", example = "2026-11-22T15:20:00.123Z") Instant oldestSince,
            @JsonProperty("oldest_age_seconds") @Schema(description = "How long that one has waited (0 when none"
                    + " waits): upload_outbox_oldest_age_seconds", example = "1200") long oldestAgeSeconds,
            @JsonProperty("stuck_after") @Schema(description = "upload.outbox.stuck-after (ISO-8601): once the oldest"
                    + " has waited longer, the service logs \"The outbox does not move\"", example = "PT5M") String stuckAfter,
            @JsonProperty("stuck_after_seconds") @Schema(example = "300") long stuckAfterSeconds,
            @JsonProperty("stuck") @Schema(description = "oldest_age_seconds is over stuck_after: hooks are late; see"
                    + " the runbook UploadOutboxNotMoving in docs/operations.md", example = "true") boolean stuck) {
    }

    private final OutboxRepository outbox;
    private final Clock clock;
    private final Duration stuckAfter;

    public OutboxAdminResource(OutboxRepository outbox, Clock clock, UploadConfig config) {
        this.outbox = outbox;
        this.clock = clock;
        this.stuckAfter = config.outbox().stuckAfter();
    }

    @GET
    @Operation(summary = "The hand-off outbox's backlog: how many events wait for hook-service, how long the oldest"
            + " has waited, and upload.outbox.stuck-after")
    @APIResponse(responseCode = "200", description = "The backlog, counted now")
    @APIResponse(responseCode = "400", description = "UNKNOWN_PARAMETER: this endpoint takes no parameters")
    public OutboxBacklog backlog(@Context UriInfo uri) {
        QueryParameters.onlyKnown(uri.getQueryParameters(), Set.of());
        OutboxRepository.Oldest oldest = outbox.oldest();
        Duration age = oldest.age(clock.instant());
        return new OutboxBacklog(oldest.count(), oldest.since(), age.toSeconds(), stuckAfter.toString(),
                stuckAfter.toSeconds(), age.compareTo(stuckAfter) > 0);
    }
}
