package com.convplatform.hook.admin;

import static com.convplatform.api.hook.HookAdmin.EXAMPLE_ACCOUNT;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;

import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import com.convplatform.api.hook.HookAdmin.AttemptView;
import com.convplatform.api.hook.HookAdmin.DeliveryDetail;
import com.convplatform.api.hook.HookAdmin.DeliveryView;
import com.convplatform.api.hook.HookAdmin.DisableRequest;
import com.convplatform.api.hook.HookAdmin.EndpointView;
import com.convplatform.api.hook.HookAdmin.Replayed;
import com.convplatform.api.hook.HookAdmin.Summary;
import com.convplatform.hook.delivery.DeliveryQueries;
import com.convplatform.support.ApiException;
import com.convplatform.support.QueryParameters;
import com.convplatform.support.Roles;

/** Operator API. A disabled endpoint's deliveries are held (PENDING, not attempted, never dropped) until enabled. */
@Path("/admin/v1")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed(Roles.OPERATOR)
@Tag(name = "operator", description = "Operator API (Authorization: Bearer <hook.admin.api-key>)")
public class AdminResource {
    private static final String NOT_FOUND = "DELIVERY_NOT_FOUND: no delivery with that id";
    private static final String INVALID_ACCOUNT = "INVALID_ACCOUNT_ID: account_id is at most 64 characters";

    private final AdminService admin;

    public AdminResource(AdminService admin) {
        this.admin = admin;
    }

    @GET
    @Path("/deliveries/summary")
    @Operation(summary = "Deliveries finished over the last hour and day by status, the backlog, and the disabled"
            + " endpoints")
    @APIResponse(responseCode = "200", description = "The summary, counted now")
    public Summary summary() {
        return admin.summary();
    }

    @GET
    @Path("/deliveries/{id}")
    @Operation(summary = "One delivery, with the event it carries (its message id, payload and intake request id) and"
            + " each attempt with the signature headers it sent")
    @APIResponse(responseCode = "200", description = "The delivery and its event")
    @APIResponse(responseCode = "404", description = NOT_FOUND)
    public DeliveryDetail delivery(
            @PathParam("id") @Parameter(example = "0190f3c2-7a41-7c3e-9d2a-5b8e1f4a6c01") String id) {
        return admin.delivery(id);
    }

    @GET
    @Path("/deliveries")
    @Operation(summary = "Deliveries, newest first")
    @APIResponse(responseCode = "200", description = "At most limit deliveries")
    @APIResponse(responseCode = "400", description = "INVALID_STATUS: status is one of PENDING, DELIVERED, DEAD;"
            + " INVALID_TIME: created_after or created_before is not an ISO-8601 instant; ACCOUNT_ID_REQUIRED: message_id"
            + " without account_id; INVALID_LIMIT: limit is not 1 to 1000")
    public List<DeliveryView> deliveries(
            @QueryParam("status") @Pattern(regexp = "PENDING|DELIVERED|DEAD", message = "INVALID_STATUS: status is one of PENDING, DELIVERED, DEAD") @Parameter(example = "DEAD") String status,
            @QueryParam("account_id") @Parameter(example = EXAMPLE_ACCOUNT) String accountId,
            @QueryParam("limit") @Parameter(description = "1 to 1000; 100 when absent") String limit,
            @QueryParam("created_after") @Parameter(description = "Only deliveries created at or after this instant (ISO-8601)", example = "2026-11-22T10:00:00Z") String createdAfter,
            @QueryParam("created_before") @Parameter(description = "Only deliveries created before this instant", example = "2026-11-22T11:00:00Z") String createdBefore,
            @QueryParam("before_id") @Parameter(description = "The delivery_id of the last delivery of the page before:"
                    + " the next page starts after it. Deliveries are listed by creation (their ids are time-ordered);"
                    + " one account's by message id, newest first") String beforeId,
            @QueryParam("message_id") @Parameter(description = "The delivery of one message of the account (with account_id)", example = "4711") Long messageId) {
        if (messageId != null && accountId == null) {
            throw new ApiException(400, "ACCOUNT_ID_REQUIRED", "message_id is looked up within one account:"
                    + " give account_id too");
        }
        int n = QueryParameters.limit(limit, 100, 1000);
        return admin.list(new DeliveryQueries.Filter(status, accountId,
                createdAfter == null ? null : instant("created_after", createdAfter),
                createdBefore == null ? null : instant("created_before", createdBefore), beforeId, messageId, n));
    }

    @GET
    @Path("/deliveries/{id}/attempts")
    @Operation(summary = "Each attempt of a delivery, in the order they were made, with the signature headers it sent")
    @APIResponse(responseCode = "200", description = "The attempts")
    @APIResponse(responseCode = "404", description = NOT_FOUND)
    public List<AttemptView> attempts(@PathParam("id") String id) {
        return admin.attempts(id);
    }

    @POST
    @Path("/deliveries/{id}/retry")
    @Operation(summary = "Queue a delivery again now, with its full retry schedule; its attempt numbers go on from the"
            + " highest recorded")
    @APIResponse(responseCode = "200", description = "The delivery, PENDING and due now")
    @APIResponse(responseCode = "404", description = NOT_FOUND)
    @APIResponse(responseCode = "409", description = "ALREADY_DELIVERED; DELIVERY_IN_FLIGHT: it is being attempted,"
            + " wait for its outcome")
    public DeliveryView retry(@PathParam("id") String id) {
        return admin.retry(id);
    }

    @POST
    @Path("/accounts/{accountId}/replay-dead-letters")
    @Operation(summary = "Queue every dead-lettered delivery of the account again")
    @APIResponse(responseCode = "200", description = "How many were queued")
    public Replayed replay(@PathParam("accountId") @Parameter(example = EXAMPLE_ACCOUNT) String accountId) {
        return admin.replay(accountId);
    }

    @GET
    @Path("/accounts/{accountId}/endpoint")
    @Operation(summary = "The account endpoint's state: failure streak, disabled or not, held deliveries")
    @APIResponse(responseCode = "200", description = "The endpoint (enabled with no failures when never seen)")
    public EndpointView endpoint(@PathParam("accountId") @Parameter(example = EXAMPLE_ACCOUNT) String accountId) {
        return admin.endpoint(accountId);
    }

    /** Disabling again keeps the first disabling's time and replaces the reason. */
    @POST
    @Path("/accounts/{accountId}/endpoint/disable")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Hold the account's deliveries (stored, not attempted) until it is enabled")
    @RequestBody(required = false)
    @APIResponse(responseCode = "200", description = "The endpoint, disabled by the operator")
    @APIResponse(responseCode = "400", description = "INVALID_ACCOUNT_ID, INVALID_REASON, MALFORMED_JSON")
    public EndpointView disable(
            @PathParam("accountId") @Size(max = 64, message = INVALID_ACCOUNT) @Parameter(example = EXAMPLE_ACCOUNT) String accountId,
            @Valid DisableRequest body) {
        return admin.disable(accountId, body == null ? null : body.reason());
    }

    /** The same call with no body at all, hence no Content-Type (which JAX-RS reads as application/octet-stream). */
    @POST
    @Path("/accounts/{accountId}/endpoint/disable")
    @Operation(hidden = true)
    public EndpointView disableWithoutBody(
            @PathParam("accountId") @Size(max = 64, message = INVALID_ACCOUNT) String accountId) {
        return disable(accountId, null);
    }

    @POST
    @Path("/accounts/{accountId}/endpoint/enable")
    @Operation(summary = "Clear the failure streak and send every held delivery now")
    @APIResponse(responseCode = "200", description = "The endpoint, enabled")
    public EndpointView enable(@PathParam("accountId") @Parameter(example = EXAMPLE_ACCOUNT) String accountId) {
        return admin.enable(accountId);
    }

    private static Instant instant(String name, String value) {
        try {
            return Instant.parse(value);
        } catch (DateTimeParseException e) {
            throw new ApiException(400, "INVALID_TIME", name + " is not an ISO-8601 instant such as"
                    + " 2026-11-22T10:00:00Z");
        }
    }
}
