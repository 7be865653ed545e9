package com.convplatform.hook.admin;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import jakarta.transaction.Transactional;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import com.convplatform.hook.config.HookConfig;
import com.convplatform.hook.delivery.Delivery;
import com.convplatform.hook.delivery.DeliveryAttempt;
import com.convplatform.hook.error.ApiException;
import com.fasterxml.jackson.annotation.JsonProperty;

import io.quarkus.panache.common.Page;
import io.quarkus.panache.common.Sort;

/** The operator API: see deliveries and their attempts, retry one, replay an account's dead letters. */
@Path("/admin/v1")
@Produces(MediaType.APPLICATION_JSON)
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

    private final HookConfig config;
    private final Clock clock;

    public AdminResource(HookConfig config, Clock clock) {
        this.config = config;
        this.clock = clock;
    }

    private void auth(String authorization) {
        ApiKeyGuard.require(config.admin().apiKey(), authorization, "operator");
    }

    @GET
    @Path("/deliveries")
    public List<DeliveryView> deliveries(@HeaderParam("Authorization") String authorization,
            @QueryParam("status") String status, @QueryParam("account_id") String accountId,
            @QueryParam("limit") Integer limit) {
        auth(authorization);
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
    public List<AttemptView> attempts(@HeaderParam("Authorization") String authorization,
            @PathParam("id") String id) {
        auth(authorization);
        delivery(id);
        return DeliveryAttempt.<DeliveryAttempt>list("deliveryId = ?1 order by attempt", id).stream()
                .map(a -> new AttemptView(a.attempt, a.startedAt, a.latencyMs, a.statusCode, a.error)).toList();
    }

    @POST
    @Path("/deliveries/{id}/retry")
    @Transactional
    public DeliveryView retry(@HeaderParam("Authorization") String authorization, @PathParam("id") String id) {
        auth(authorization);
        Delivery d = delivery(id);
        if (Delivery.DELIVERED.equals(d.status)) {
            throw new ApiException(409, "ALREADY_DELIVERED", "Delivery " + id + " was delivered; nothing to retry");
        }
        requeue(d);
        return DeliveryView.of(d);
    }

    @POST
    @Path("/accounts/{accountId}/replay-dead-letters")
    @Transactional
    public Map<String, Object> replay(@HeaderParam("Authorization") String authorization,
            @PathParam("accountId") String accountId) {
        auth(authorization);
        List<Delivery> dead = Delivery.list("accountId = ?1 and status = ?2", accountId, Delivery.DEAD);
        dead.forEach(this::requeue);
        return Map.of("account_id", accountId, "requeued", dead.size());
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
