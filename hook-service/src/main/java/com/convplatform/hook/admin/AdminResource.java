package com.convplatform.hook.admin;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
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

import org.eclipse.microprofile.faulttolerance.Retry;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;
import org.hibernate.exception.ConstraintViolationException;

import com.convplatform.hook.delivery.Delivery;
import com.convplatform.hook.delivery.Delivery.EndpointState;
import com.convplatform.support.ApiException;
import com.convplatform.support.Roles;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkus.narayana.jta.QuarkusTransaction;
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
    private static final int DISABLED_LISTED = 100;

    public record DeliveryView(@Schema(example = "0193a5b2c4d6e8f0a1b2c3d4e5f60718") String deliveryId,
            @Schema(example = "0193a5b2c4d6e8f0112233445566778") String eventId,
            @Schema(example = EXAMPLE_ACCOUNT) String accountId,
            @Schema(enumeration = {
                    "PENDING", "DELIVERED", "DEAD"}) String status,
            int attempts, Instant nextAttemptAt,
            @Schema(example = "HTTP 503") String lastError, Instant deliveredAt, Instant createdAt){
        static DeliveryView of(Delivery d) {
            return new DeliveryView(d.id, d.eventId, d.accountId, d.status, d.attempts, d.nextAttemptAt, d.lastError,
                    d.deliveredAt, d.createdAt);
        }
    }

    static final String EXAMPLE_SIGNATURE_HEADERS = "{\"signature\":\"FNYSR+2Jp1f8toQJAPDQ6JRcqwE7jWAyINnGLoi4/uqXkQ1RxU"
            + "SzcIMAF6oCHkKMr+Mnq4b6SNoIrgzkIuxcNgP+0596dYGSZ5Ho8hxZmMe8nh/P5saiGikXMK5EUHZ4JIBaM/QwtGh/WoPcxvYZuaN+WZgXPIX"
            + "SXgb6cQOLeKxBb1roUI7h0Foe4oZLB65wb+QtEUPTJhKZf7woHm2si9eO2kTl+XNc+2XMTJHDy0HRQ4NfSjmKWxE2Bi9aD/gzATrHsak9LOz4Ha"
            + "qFm28ZUQ2xqH5/Fe3FYfd3DzZsYldcLQD4ZKgVHmc+Rceo/Ju1qN/bc45JN6k5kE2z6Szyjg==\",\"signature-certificate-url\":"
            + "\"https://hooks.platform.example/platform/hooks/certificate/\"}";

    public record AttemptView(
            @Schema(description = "1, 2, ...; numbers go on after an operator's retry or replay") int attempt,
            Instant startedAt, long latencyMs,
            @Schema(example = "200", description = "None when no answer came") Integer statusCode,
            @Schema(example = "timed out after 10000 ms") String error,
            @Schema(description = "The signature headers this attempt's request carried, name to value exactly as sent"
                    + " (each attempt is signed afresh, over a body with its own signature_timestamp). Not secret: a"
                    + " signature and the public certificate URL. An empty object when none were recorded: attempts"
                    + " made before hook-service stored them, and attempts that sent no request (the error says why:"
                    + " the account lookup failed, the address was refused)", example = EXAMPLE_SIGNATURE_HEADERS) Map<String, String> signatureHeaders) {
    }

    public record EndpointView(@Schema(example = EXAMPLE_ACCOUNT) String accountId, boolean enabled,
            int consecutiveFailures, Instant failingSince,
            Instant lastFailureAt, Instant disabledAt, @Schema(enumeration = {
                    "rule", "operator"}) String disabledBy,
            @Schema(example = "receiver under maintenance") String disabledReason, long heldDeliveries){
    }

    public record DisableRequest(
            @Size(max = 500, message = "INVALID_REASON: reason is at most 500 characters") @Schema(example = "receiver under maintenance") String reason) {
    }

    public record Replayed(@Schema(example = EXAMPLE_ACCOUNT) String accountId, @Schema(example = "12") int requeued) {
    }

    public record Summary(Instant at,
            @Schema(description = "Deliveries created in the last hour, by status", example = "{\"PENDING\":2,\"DELIVERED\":118,\"DEAD\":1}") Map<String, Long> lastHour,
            @Schema(description = "Deliveries created in the last 24 hours, by status") Map<String, Long> lastDay,
            @Schema(description = "Every pending delivery, whenever created") long pending,
            @Schema(description = "Pending deliveries of disabled endpoints: held, not attempted") long held,
            @Schema(description = "Every dead-lettered delivery") long dead,
            @Schema(description = "When the oldest pending delivery was created; none when nothing is pending") Instant oldestUndeliveredAt,
            String oldestUndeliveredId,
            @Schema(description = "How many endpoints are disabled, by rule or by an operator") long disabledCount,
            @Schema(description = "The disabled endpoints, longest disabled first (at most 100)") List<EndpointView> disabledEndpoints) {
    }

    public record DeliveryDetail(String deliveryId, String eventId, String accountId,
            @Schema(example = "4711") long messageId,
            @Schema(enumeration = {
                    "PENDING", "DELIVERED", "DEAD"}) String status,
            int attempts, Instant nextAttemptAt, String lastError, Instant deliveredAt, Instant createdAt,
            @Schema(description = "The id of the intake request that carried the event") String requestId,
            @Schema(description = "The event as accepted: the JSON body every attempt signs and sends (with its own"
                    + " signature_timestamp added last)") String payload,
            @Schema(description = "Every attempt, in the order they were made, each with the signature headers it"
                    + " sent (as GET /admin/v1/deliveries/{id}/attempts)") List<AttemptView> attemptHistory){
    }

    private final Clock clock;
    private final ObjectMapper json;

    public AdminResource(Clock clock, ObjectMapper json) {
        this.clock = clock;
        this.json = json;
    }

    @GET
    @Path("/deliveries/summary")
    @Operation(summary = "Deliveries by status over the last hour and day, the backlog, and the disabled endpoints")
    @APIResponse(responseCode = "200", description = "The summary, counted now")
    @Transactional
    public Summary summary() {
        Instant now = clock.instant();
        Delivery oldest = Delivery.<Delivery>find("status = ?1 order by createdAt, id", Delivery.PENDING)
                .firstResult();
        List<EndpointState> disabled = EndpointState.<EndpointState>find(
                "disabledAt is not null order by disabledAt, accountId").page(0, DISABLED_LISTED).list();
        return new Summary(now, byStatus(now.minus(Duration.ofHours(1))), byStatus(now.minus(Duration.ofDays(1))),
                Delivery.count("status", Delivery.PENDING),
                Delivery.count("status = ?1 and accountId in (select s.accountId from EndpointState s"
                        + " where s.disabledAt is not null)", Delivery.PENDING),
                Delivery.count("status", Delivery.DEAD), oldest == null ? null : oldest.createdAt,
                oldest == null ? null : oldest.id, EndpointState.count("disabledAt is not null"),
                disabled.stream().map(s -> endpoint(s.accountId)).toList());
    }

    @GET
    @Path("/deliveries/{id}")
    @Operation(summary = "One delivery, with the event it carries (its message id, payload and intake request id) and"
            + " each attempt with the signature headers it sent")
    @APIResponse(responseCode = "200", description = "The delivery and its event")
    @APIResponse(responseCode = "404", description = NOT_FOUND)
    @Transactional
    public DeliveryDetail delivery(
            @PathParam("id") @Parameter(example = "0190f3c2-7a41-7c3e-9d2a-5b8e1f4a6c01") String id) {
        Delivery d = existing(id, LockModeType.NONE);
        Object[] event = (Object[]) Delivery.getEntityManager()
                .createNativeQuery("select message_id, payload, request_id from hook_event where id = ?1")
                .setParameter(1, d.eventId).getSingleResult();
        return new DeliveryDetail(d.id, d.eventId, d.accountId, ((Number) event[0]).longValue(), d.status,
                d.attempts, d.nextAttemptAt, d.lastError, d.deliveredAt, d.createdAt, (String) event[2],
                (String) event[1], attemptsOf(d.id));
    }

    @GET
    @Path("/deliveries")
    @Operation(summary = "Deliveries, newest first")
    @APIResponse(responseCode = "200", description = "At most limit deliveries")
    @APIResponse(responseCode = "400", description = "INVALID_STATUS: status is one of PENDING, DELIVERED, DEAD;"
            + " INVALID_TIME: created_after or created_before is not an ISO-8601 instant; ACCOUNT_ID_REQUIRED: message_id"
            + " without account_id")
    public List<DeliveryView> deliveries(
            @QueryParam("status") @Pattern(regexp = "PENDING|DELIVERED|DEAD", message = "INVALID_STATUS: status is one of PENDING, DELIVERED, DEAD") @Parameter(example = "DEAD") String status,
            @QueryParam("account_id") @Parameter(example = EXAMPLE_ACCOUNT) String accountId,
            @QueryParam("limit") @Parameter(description = "1 to 1000 (taken within those bounds); 100 when absent") Integer limit,
            @QueryParam("created_after") @Parameter(description = "Only deliveries created at or after this instant (ISO-8601)", example = "2026-11-22T10:00:00Z") String createdAfter,
            @QueryParam("created_before") @Parameter(description = "Only deliveries created before this instant: the next page"
                    + " is asked for with the created_at of the last delivery of this one", example = "2026-11-22T11:00:00Z") String createdBefore,
            @QueryParam("before_id") @Parameter(description = "With created_before: the delivery_id of the last delivery"
                    + " of the page before, so that deliveries created in the same instant are neither skipped nor repeated") String beforeId,
            @QueryParam("message_id") @Parameter(description = "The delivery of one message of the account (with account_id)", example = "4711") Long messageId) {
        Map<String, Object> params = new HashMap<>();
        params.put("status", status);
        params.put("accountId", accountId);
        params.values().removeIf(Objects::isNull); // the filters given
        List<String> where = new ArrayList<>(params.keySet().stream().map(field -> field + " = :" + field).toList());
        if (createdAfter != null) {
            params.put("after", instant("created_after", createdAfter));
            where.add("createdAt >= :after");
        }
        if (createdBefore != null) {
            params.put("before", instant("created_before", createdBefore));
            if (beforeId != null) {
                params.put("beforeId", beforeId);
                where.add("(createdAt < :before or (createdAt = :before and id < :beforeId))");
            } else {
                where.add("createdAt < :before");
            }
        }
        if (messageId != null) {
            if (accountId == null) {
                throw new ApiException(400, "ACCOUNT_ID_REQUIRED", "message_id is looked up within one account:"
                        + " give account_id too");
            }
            List<?> eventIds = Delivery.getEntityManager()
                    .createNativeQuery("select id from hook_event where account_id = ?1 and message_id = ?2")
                    .setParameter(1, accountId).setParameter(2, messageId).getResultList();
            if (eventIds.isEmpty()) {
                return List.of(); // that message never reached hook-service
            }
            params.put("eventId", eventIds.get(0));
            where.add("eventId = :eventId");
        }
        int n = limit == null ? 100 : Math.max(1, Math.min(limit, 1000));
        return Delivery.<Delivery>find(String.join(" and ", where), Sort.descending("createdAt", "id"), params)
                .page(0, n).list().stream().map(DeliveryView::of).toList();
    }

    @GET
    @Path("/deliveries/{id}/attempts")
    @Operation(summary = "Each attempt of a delivery, in the order they were made, with the signature headers it sent")
    @APIResponse(responseCode = "200", description = "The attempts")
    @APIResponse(responseCode = "404", description = NOT_FOUND)
    public List<AttemptView> attempts(@PathParam("id") String id) {
        existing(id, LockModeType.NONE);
        return attemptsOf(id);
    }

    /** By their start: before attempt numbers went on over a retry, a retried delivery numbered them from 1 again. */
    private List<AttemptView> attemptsOf(String deliveryId) {
        return Delivery.Attempt.<Delivery.Attempt>list("deliveryId = ?1 order by startedAt, attempt, id", deliveryId)
                .stream().map(a -> new AttemptView(a.attempt, a.startedAt, a.latencyMs, a.statusCode, a.error,
                        headers(a.signatureHeaders)))
                .toList();
    }

    private Map<String, String> headers(String stored) {
        if (stored == null) {
            return Map.of();
        }
        try {
            return json.readerForMapOf(String.class).readValue(stored);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("A stored attempt's signature headers are not a JSON object", e);
        }
    }

    @POST
    @Path("/deliveries/{id}/retry")
    @Transactional
    @Operation(summary = "Queue a delivery again now, with its full retry schedule; its attempt numbers go on from the"
            + " highest recorded")
    @APIResponse(responseCode = "200", description = "The delivery, PENDING and due now")
    @APIResponse(responseCode = "404", description = NOT_FOUND)
    @APIResponse(responseCode = "409", description = "ALREADY_DELIVERED; DELIVERY_IN_FLIGHT: it is being attempted,"
            + " wait for its outcome")
    public DeliveryView retry(@PathParam("id") String id) {
        // locked, so a claim or an outcome being recorded now is waited for and seen, never overwritten
        Delivery d = existing(id, LockModeType.PESSIMISTIC_WRITE);
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
    @Operation(summary = "Hold the account's deliveries (stored, not attempted) until it is enabled")
    @RequestBody(required = false)
    @APIResponse(responseCode = "200", description = "The endpoint, disabled by the operator")
    @APIResponse(responseCode = "400", description = "INVALID_ACCOUNT_ID, INVALID_REASON, MALFORMED_JSON")
    // lost a race to a concurrent first disabling: once more, and it updates the row that one made
    @Retry(maxRetries = 1, delay = 0, retryOn = ConstraintViolationException.class)
    public EndpointView disable(
            @PathParam("accountId") @Size(max = 64, message = INVALID_ACCOUNT) @Parameter(example = EXAMPLE_ACCOUNT) String accountId,
            @Valid DisableRequest body) {
        return QuarkusTransaction.requiringNew().call(() -> {
            EndpointState s = EndpointState.findById(accountId, LockModeType.PESSIMISTIC_WRITE);
            if (s == null) {
                s = new EndpointState();
                s.accountId = accountId;
                s.persistAndFlush();
            }
            s.disabledAt = s.disabledAt == null ? clock.instant() : s.disabledAt;
            s.disabledBy = EndpointState.BY_OPERATOR;
            boolean noReason = body == null || body.reason() == null || body.reason().isBlank();
            s.disabledReason = noReason ? "disabled by an operator" : body.reason();
            EndpointState.flush();
            return endpoint(accountId);
        });
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

    /** The attempt log can be ahead of the count (an attempt recorded by a replica that had lost its lease). */
    private void requeue(Delivery d) {
        Integer highest = Delivery.getEntityManager()
                .createQuery("select max(a.attempt) from DeliveryAttempt a where a.deliveryId = ?1", Integer.class)
                .setParameter(1, d.id).getSingleResult();
        d.status = Delivery.PENDING;
        d.attempts = Math.max(d.attempts, highest == null ? 0 : highest);
        d.scheduleStart = d.attempts;
        d.nextAttemptAt = clock.instant();
        d.leaseOwner = null;
        d.leaseUntil = null;
    }

    private static Map<String, Long> byStatus(Instant since) {
        Map<String, Long> counts = new LinkedHashMap<>();
        List.of(Delivery.PENDING, Delivery.DELIVERED, Delivery.DEAD).forEach(status -> counts.put(status, 0L));
        Delivery.getEntityManager().createQuery(
                "select d.status, count(d) from Delivery d where d.createdAt >= ?1 group by d.status", Object[].class)
                .setParameter(1, since).getResultList()
                .forEach(r -> counts.put((String) r[0], ((Number) r[1]).longValue()));
        return counts;
    }

    private static Instant instant(String name, String value) {
        try {
            return Instant.parse(value);
        } catch (DateTimeParseException e) {
            throw new ApiException(400, "INVALID_TIME", name + " is not an ISO-8601 instant such as"
                    + " 2026-11-22T10:00:00Z");
        }
    }

    private static Delivery existing(String id, LockModeType lock) {
        return Delivery.<Delivery>findByIdOptional(id, lock)
                .orElseThrow(() -> new ApiException(404, "DELIVERY_NOT_FOUND", "No delivery " + id));
    }
}
