package com.convplatform.hook.intake;

import java.util.Map;

import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;
import org.jboss.logging.Logger;

import com.convplatform.api.hook.HookErasure;
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
    private final DeliveryQueries deliveries;

    public ErasureResource(DeliveryQueries deliveries) {
        this.deliveries = deliveries;
    }

    @POST
    @Operation(summary = "Remove every delivery of the messages named (an upload user's erasure), in one transaction")
    @APIResponse(responseCode = "200", description = "What was removed (repeating the call removes nothing more)")
    @APIResponse(responseCode = "400", description = "MISSING_FIELD, TOO_MANY_MESSAGES, MALFORMED_JSON")
    public HookErasure.Erased erase(
            @NotNull(message = "MISSING_FIELD: the body is {\"account_id\", \"message_ids\"}") @Valid HookErasure.Erasure body) {
        Map<String, Integer> removed = body.messageIds().isEmpty()
                ? Map.of()
                : deliveries.erase(body.accountId(), body.messageIds());
        LOG.infof("Erasure for account %s: %d messages named, removed %s", body.accountId(), body.messageIds().size(),
                removed);
        return new HookErasure.Erased(removed);
    }
}
