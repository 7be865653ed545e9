package com.convplatform.hook.admin;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import jakarta.annotation.security.RolesAllowed;
import jakarta.transaction.Transactional;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import com.convplatform.hook.delivery.Delivery;
import com.convplatform.hook.delivery.DeliveryAttempt;
import com.convplatform.hook.delivery.EndpointControl;
import com.convplatform.support.ApiException;
import com.convplatform.support.Roles;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkus.panache.common.Page;
import io.quarkus.panache.common.Sort;

/**
 * The operator API: see deliveries and their attempts, retry one, replay an account's dead letters, and see, disable
 * and enable an account's endpoint.
 */
@Path("/admin/v1")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed(Roles.OPERATOR)
@Tag(name = "operator", description = "Operator API (Authorization: Bearer <hook.admin.api-key>)")
public class AdminResource {

    public record DeliveryView(@JsonProperty("delivery_id") String deliveryId,
            @JsonProperty("event_id") String eventId, @JsonProperty("account_id") String accountId, String status,
            int attempts, @JsonProperty("next_attempt_at") Instant nextAttemptAt,
            @JsonProperty("last_error") String lastError, @JsonProperty("delivered_at") Instant deliveredAt,
            @JsonProperty("created_at") Instant createdAt) {
        static DeliveryView of(Delivery d) {
            return new DeliveryView(d.id, d.eventId, d.accountId, d.status, d.attempts, d.nextAttemptAt, d.lastError,
                    d.deliveredAt, d.createdAt);
        }
    }

    public record AttemptView(int attempt, @JsonProperty("started_at") Instant startedAt,
            @JsonProperty("latency_ms") long latencyMs, @JsonProperty("status_code") Integer statusCode,
            String error) {
    }

    public record EndpointView(@JsonProperty("account_id") String accountId, boolean enabled,
            @JsonProperty("consecutive_failures") int consecutiveFailures,
            @JsonProperty("failing_since") Instant failingSince,
            @JsonProperty("last_failure_at") Instant lastFailureAt, @JsonProperty("disabled_at") Instant disabledAt,
            @JsonProperty("disabled_by") String disabledBy, @JsonProperty("disabled_reason") String disabledReason,
            @JsonProperty("held_deliveries") long heldDeliveries) {
        static EndpointView of(EndpointControl.View v) {
            return new EndpointView(v.accountId(), v.enabled(), v.consecutiveFailures(), v.failingSince(),
                    v.lastFailureAt(), v.disabledAt(), v.disabledBy(), v.disabledReason(), v.heldDeliveries());
        }
    }

    /** Optional body of a disable call. */
    public record DisableRequest(String reason) {
    }

    private final Clock clock;
    private final EndpointControl endpoints;
    private final ObjectMapper json;

    public AdminResource(Clock clock, EndpointControl endpoints, ObjectMapper json) {
        this.clock = clock;
        this.endpoints = endpoints;
        this.json = json;
    }

    @GET
    @Path("/deliveries")
    public List<DeliveryView> deliveries(@QueryParam("status") String status,
            @QueryParam("account_id") String accountId,
            @QueryParam("limit") Integer limit) {
        if (status != null && !List.of(Delivery.PENDING, Delivery.DELIVERED, Delivery.DEAD).contains(status)) {
            throw new ApiException(400, "INVALID_STATUS", "status is one of PENDING, DELIVERED, DEAD");
        }
        StringBuilder q = new StringBuilder("1 = 1");
        Map<String, Object> params = new java.util.HashMap<>();
        if (status != null) {
            q.append(" and status = :status");
            params.put("status", status);
        }
        if (accountId != null) {
            q.append(" and accountId = :account");
            params.put("account", accountId);
        }
        int n = limit == null ? 100 : Math.max(1, Math.min(limit, 1000));
        return Delivery.<Delivery>find(q.toString(), Sort.descending("createdAt"), params).page(Page.ofSize(n))
                .list().stream().map(DeliveryView::of).toList();
    }

    @GET
    @Path("/deliveries/{id}/attempts")
    public List<AttemptView> attempts(@PathParam("id") String id) {
        delivery(id);
        return DeliveryAttempt.<DeliveryAttempt>list("deliveryId = ?1 order by attempt", id).stream()
                .map(a -> new AttemptView(a.attempt, a.startedAt, a.latencyMs, a.statusCode, a.error)).toList();
    }

    @POST
    @Path("/deliveries/{id}/retry")
    @Transactional
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
    public Map<String, Object> replay(@PathParam("accountId") String accountId) {
        List<Delivery> dead = Delivery.list("accountId = ?1 and status = ?2", accountId, Delivery.DEAD);
        dead.forEach(this::requeue);
        return Map.of("account_id", accountId, "requeued", dead.size());
    }

    @GET
    @Path("/accounts/{accountId}/endpoint")
    public EndpointView endpoint(@PathParam("accountId") String accountId) {
        return EndpointView.of(endpoints.view(accountId));
    }

    @POST
    @Path("/accounts/{accountId}/endpoint/disable")
    @RequestBody(required = false, content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = DisableRequest.class)))
    public EndpointView disable(@PathParam("accountId") String accountId, String body) {
        if (accountId.length() > 64) {
            throw new ApiException(400, "INVALID_ACCOUNT_ID", "account_id is at most 64 characters");
        }
        String reason = null;
        if (body != null && !body.isBlank()) {
            try {
                reason = json.readValue(body, DisableRequest.class).reason();
            } catch (java.io.IOException e) {
                throw new ApiException(400, "INVALID_BODY",
                        "the body is optional; when sent it is {\"reason\": \"...\"}");
            }
        }
        if (reason != null && reason.length() > 500) {
            throw new ApiException(400, "INVALID_REASON", "reason is at most 500 characters");
        }
        return EndpointView.of(endpoints.disable(accountId, reason));
    }

    @POST
    @Path("/accounts/{accountId}/endpoint/enable")
    public EndpointView enable(@PathParam("accountId") String accountId) {
        return EndpointView.of(endpoints.enable(accountId));
    }

    private void requeue(Delivery d) {
        d.status = Delivery.PENDING;
        d.attempts = 0;
        d.nextAttemptAt = clock.instant();
        d.leaseOwner = null;
        d.leaseUntil = null;
    }

    private static Delivery delivery(String id) {
        Delivery d = Delivery.findById(id);
        if (d == null) {
            throw new ApiException(404, "DELIVERY_NOT_FOUND", "No delivery " + id);
        }
        return d;
    }
}
