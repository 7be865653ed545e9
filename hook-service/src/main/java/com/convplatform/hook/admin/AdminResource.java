package com.convplatform.hook.admin;

import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import jakarta.annotation.security.RolesAllowed;
import jakarta.persistence.LockModeType;
import jakarta.transaction.Transactional;
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
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import com.convplatform.hook.delivery.Delivery;
import com.convplatform.hook.delivery.Delivery.EndpointState;
import com.convplatform.support.ApiException;
import com.convplatform.support.Roles;

import io.quarkus.panache.common.Page;
import io.quarkus.panache.common.Sort;

/** Operator API. A disabled endpoint's deliveries are held (PENDING, not attempted, never dropped) until enabled. */
@Path("/admin/v1")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed(Roles.OPERATOR)
@Tag(name = "operator", description = "Operator API (Authorization: Bearer <hook.admin.api-key>)")
public class AdminResource {
    private static final String NOT_FOUND = "DELIVERY_NOT_FOUND: no delivery with that id";
    private static final String INVALID_ACCOUNT = "INVALID_ACCOUNT_ID: account_id is at most 64 characters";
    private static final String EXAMPLE_ACCOUNT = "0b7c6f1e-3a52-4d0e-9a7e-2f1c9d4e8a10";

    public record DeliveryView(String deliveryId, String eventId, String accountId,
            @Schema(enumeration = {
                    "PENDING", "DELIVERED", "DEAD"}) String status,
            int attempts, Instant nextAttemptAt,
            @Schema(example = "HTTP 503") String lastError, Instant deliveredAt, Instant createdAt){
        static DeliveryView of(Delivery d) {
            return new DeliveryView(d.id, d.eventId, d.accountId, d.status, d.attempts, d.nextAttemptAt, d.lastError,
                    d.deliveredAt, d.createdAt);
        }
    }

    public record AttemptView(int attempt, Instant startedAt, long latencyMs,
            @Schema(example = "200", description = "None when no answer came") Integer statusCode,
            @Schema(example = "timed out after 10000 ms") String error) {
    }

    /** An account endpoint's state; no row means enabled, with no failures. */
    public record EndpointView(String accountId, boolean enabled, int consecutiveFailures, Instant failingSince,
            Instant lastFailureAt, Instant disabledAt, @Schema(enumeration = {
                    "rule", "operator"}) String disabledBy,
            String disabledReason, long heldDeliveries){
    }

    public record DisableRequest(
            @Size(max = 500, message = "INVALID_REASON: reason is at most 500 characters") @Schema(example = "receiver under maintenance") String reason) {
    }

    public record Replayed(String accountId, int requeued) {
    }

    private final Clock clock;

    public AdminResource(Clock clock) {
        this.clock = clock;
    }

    @GET
    @Path("/deliveries")
    @Operation(summary = "Deliveries, newest first")
    @APIResponse(responseCode = "200", description = "At most limit deliveries")
    @APIResponse(responseCode = "400", description = "INVALID_STATUS: status is one of PENDING, DELIVERED, DEAD")
    public List<DeliveryView> deliveries(
            @QueryParam("status") @Pattern(regexp = "PENDING|DELIVERED|DEAD", message = "INVALID_STATUS: status is one of PENDING, DELIVERED, DEAD") @Parameter(example = "DEAD") String status,
            @QueryParam("account_id") @Parameter(example = EXAMPLE_ACCOUNT) String accountId,
            @QueryParam("limit") @Parameter(description = "1 to 1000 (taken within those bounds); 100 when absent") Integer limit) {
        Map<String, Object> params = new HashMap<>();
        params.put("status", status);
        params.put("accountId", accountId);
        params.values().removeIf(Objects::isNull); // the filters given
        String where = String.join(" and ", params.keySet().stream().map(field -> field + " = :" + field).toList());
        int n = limit == null ? 100 : Math.max(1, Math.min(limit, 1000));
        return Delivery.<Delivery>find(where, Sort.descending("createdAt"), params).page(Page.ofSize(n)).list()
                .stream().map(DeliveryView::of).toList();
    }

    @GET
    @Path("/deliveries/{id}/attempts")
    @Operation(summary = "Each attempt of a delivery, first to last")
    @APIResponse(responseCode = "200", description = "The attempts")
    @APIResponse(responseCode = "404", description = NOT_FOUND)
    public List<AttemptView> attempts(@PathParam("id") String id) {
        delivery(id);
        return Delivery.Attempt.<Delivery.Attempt>list("deliveryId = ?1 order by attempt", id).stream()
                .map(a -> new AttemptView(a.attempt, a.startedAt, a.latencyMs, a.statusCode, a.error)).toList();
    }

    @POST
    @Path("/deliveries/{id}/retry")
    @Transactional
    @Operation(summary = "Queue a delivery again now, with its full retry schedule")
    @APIResponse(responseCode = "200", description = "The delivery, PENDING and due now")
    @APIResponse(responseCode = "404", description = NOT_FOUND)
    @APIResponse(responseCode = "409", description = "ALREADY_DELIVERED; DELIVERY_IN_FLIGHT: it is being attempted,"
            + " wait for its outcome")
    public DeliveryView retry(@PathParam("id") String id) {
        Delivery d = delivery(id);
        if (Delivery.DELIVERED.equals(d.status)) {
            throw new ApiException(409, "ALREADY_DELIVERED", "Delivery " + id + " was delivered; nothing to retry");
        }
        if (d.leaseUntil != null && d.leaseUntil.isAfter(clock.instant())) {
            throw new ApiException(409, "DELIVERY_IN_FLIGHT", "Delivery " + id
                    + " is being attempted now; its outcome is recorded within seconds (list its attempts)");
        }
        requeue(d);
        return DeliveryView.of(d);
    }

    @POST
    @Path("/accounts/{accountId}/replay-dead-letters")
    @Transactional
    @Operation(summary = "Queue every dead-lettered delivery of the account again")
    @APIResponse(responseCode = "200", description = "How many were queued")
    public Replayed replay(@PathParam("accountId") @Parameter(example = EXAMPLE_ACCOUNT) String accountId) {
        List<Delivery> dead = Delivery.list("accountId = ?1 and status = ?2", accountId, Delivery.DEAD);
        dead.forEach(this::requeue);
        return new Replayed(accountId, dead.size());
    }

    @GET
    @Path("/accounts/{accountId}/endpoint")
    @Transactional
    @Operation(summary = "The account endpoint's state: failure streak, disabled or not, held deliveries")
    @APIResponse(responseCode = "200", description = "The endpoint (enabled with no failures when never seen)")
    public EndpointView endpoint(@PathParam("accountId") @Parameter(example = EXAMPLE_ACCOUNT) String accountId) {
        EndpointState s = EndpointState.<EndpointState>findByIdOptional(accountId).orElseGet(EndpointState::new);
        return new EndpointView(accountId, s.disabledAt == null, s.consecutiveFailures, s.failingSince,
                s.lastFailureAt, s.disabledAt, s.disabledBy, s.disabledReason,
                Delivery.count("accountId = ?1 and status = ?2", accountId, Delivery.PENDING));
    }

    /** Disabling again keeps the first disabling's time and replaces the reason. */
    @POST
    @Path("/accounts/{accountId}/endpoint/disable")
    @Consumes(MediaType.APPLICATION_JSON)
    @Transactional
    @Operation(summary = "Hold the account's deliveries (stored, not attempted) until it is enabled")
    @RequestBody(required = false)
    @APIResponse(responseCode = "200", description = "The endpoint, disabled by the operator")
    @APIResponse(responseCode = "400", description = "INVALID_ACCOUNT_ID, INVALID_REASON, MALFORMED_JSON")
    public EndpointView disable(
            @PathParam("accountId") @Size(max = 64, message = INVALID_ACCOUNT) @Parameter(example = EXAMPLE_ACCOUNT) String accountId,
            @Valid DisableRequest body) {
        EndpointState s = EndpointState.findById(accountId, LockModeType.PESSIMISTIC_WRITE);
        if (s == null) {
            s = new EndpointState();
            s.accountId = accountId;
            s.persist();
        }
        s.disabledAt = s.disabledAt == null ? clock.instant() : s.disabledAt;
        s.disabledBy = EndpointState.BY_OPERATOR;
        s.disabledReason = body == null || body.reason() == null || body.reason().isBlank()
                ? "disabled by an operator"
                : body.reason();
        EndpointState.flush();
        return endpoint(accountId);
    }

    /** The same call with no body at all, hence no Content-Type (which JAX-RS reads as application/octet-stream). */
    @POST
    @Path("/accounts/{accountId}/endpoint/disable")
    @Transactional
    @Operation(hidden = true)
    public EndpointView disableWithoutBody(
            @PathParam("accountId") @Size(max = 64, message = INVALID_ACCOUNT) String accountId) {
        return disable(accountId, null);
    }

    @POST
    @Path("/accounts/{accountId}/endpoint/enable")
    @Transactional
    @Operation(summary = "Clear the failure streak and send every held delivery now")
    @APIResponse(responseCode = "200", description = "The endpoint, enabled")
    public EndpointView enable(@PathParam("accountId") @Parameter(example = EXAMPLE_ACCOUNT) String accountId) {
        EndpointState s = EndpointState.findById(accountId, LockModeType.PESSIMISTIC_WRITE);
        if (s != null) {
            s.disabledAt = null;
            s.disabledBy = null;
            s.disabledReason = null;
            s.consecutiveFailures = 0;
            s.failingSince = null;
            Delivery.update("nextAttemptAt = ?1 where accountId = ?2 and status = ?3 and nextAttemptAt > ?1"
                    + " and (leaseUntil is null or leaseUntil < ?1)", clock.instant(), accountId, Delivery.PENDING);
        }
        EndpointState.flush();
        return endpoint(accountId);
    }

    private void requeue(Delivery d) {
        d.status = Delivery.PENDING;
        d.attempts = 0;
        d.nextAttemptAt = clock.instant();
        d.leaseOwner = null;
        d.leaseUntil = null;
    }

    private static Delivery delivery(String id) {
        return Delivery.<Delivery>findByIdOptional(id)
                .orElseThrow(() -> new ApiException(404, "DELIVERY_NOT_FOUND", "No delivery " + id));
    }
}
