package com.convplatform.hook.intake;

import java.util.List;
import java.util.Map;

import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;
import org.jboss.logging.Logger;

import com.convplatform.hook.delivery.DeliveryQueries;
import com.convplatform.support.Roles;

/**
 * The erasure of an upload user's messages (a privacy request made at upload-service, which names their messages
 * here): their deliveries leave the queue, the history, the attempt log and the dead letters, whatever their state.
 */
@Path("/internal/v1/erasures")
@RolesAllowed(Roles.INTERNAL)
@Consumes(MediaType.APPLICATION_JSON)
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "intake", description = "Service-to-service intake (Authorization: Bearer <hook.internal.api-key>)")
public class ErasureResource {
    private static final Logger LOG = Logger.getLogger(ErasureResource.class);
    static final int MAX_MESSAGES = 10_000;

    public record Erasure(
            @NotNull(message = "MISSING_FIELD: 'account_id' is required") @Size(min = 1, max = 64, message = "MISSING_FIELD: 'account_id' is 1 to 64 characters") @Schema(example = "0b7c6f1e-3a52-4d0e-9a7e-2f1c9d4e8a10") String accountId,
            @NotNull(message = "MISSING_FIELD: 'message_ids' is required") @Size(max = MAX_MESSAGES, message = "TOO_MANY_MESSAGES: at most 10000 message ids per call") List<@NotNull Long> messageIds) {
    }

    public record Erased(
            @Schema(description = "Rows removed, by table", example = "{\"delivery_queue\":0,\"delivery_history\":3,\"delivery_attempt\":4,\"dead_letter\":0}") Map<String, Integer> removed) {
    }

    private final DeliveryQueries deliveries;

    public ErasureResource(DeliveryQueries deliveries) {
        this.deliveries = deliveries;
    }

    @POST
    @Operation(summary = "Remove every delivery of the messages named (an upload user's erasure), in one transaction")
    @APIResponse(responseCode = "200", description = "What was removed (repeating the call removes nothing more)")
    @APIResponse(responseCode = "400", description = "MISSING_FIELD, TOO_MANY_MESSAGES, MALFORMED_JSON")
    public Erased erase(
            @NotNull(message = "MISSING_FIELD: the body is {\"account_id\", \"message_ids\"}") @Valid Erasure body) {
        Map<String, Integer> removed = body.messageIds().isEmpty()
                ? Map.of()
                : deliveries.erase(body.accountId(), body.messageIds());
        LOG.infof("Erasure for account %s: %d messages named, removed %s", body.accountId(), body.messageIds().size(),
                removed);
        return new Erased(removed);
    }
}
