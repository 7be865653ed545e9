package com.convplatform.hook.admin;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import com.convplatform.hook.delivery.DeliveryQueries;
import com.convplatform.hook.delivery.DeliveryStore;
import com.convplatform.support.ApiException;
import com.convplatform.support.QueryParameters;
import com.convplatform.support.Roles;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

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
        static DeliveryView of(DeliveryQueries.Row d) {
            return new DeliveryView(d.deliveryId(), d.eventId(), d.accountId(), d.status(), d.attempts(),
                    d.nextAttemptAt(), d.lastError(), d.deliveredAt(), d.createdAt());
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
            @Schema(description = "The last hour: deliveries delivered and dead-lettered (from the start of the hour it"
                    + " began in), and deliveries created since and still pending", example = "{\"PENDING\":2,\"DELIVERED\":118,\"DEAD\":1}") Map<String, Long> lastHour,
            @Schema(description = "The same over the last 24 hours") Map<String, Long> lastDay,
            @Schema(description = "Every pending delivery, whenever created") long pending,
            @Schema(description = "Pending deliveries of disabled endpoints: held, not attempted") long held,
            @Schema(description = "Every dead-lettered delivery") long dead,
            @Schema(description = "When the oldest pending delivery was created; none when nothing is pending") Instant oldestUndeliveredAt,
            String oldestUndeliveredId,
            @Schema(description = "How many endpoints are disabled, by rule or by an operator") long disabledCount,
            @Schema(description = "The disabled endpoints, longest disabled first (at most 100)") List<EndpointView> disabledEndpoints,
            @Schema(description = "The last 24 hours, hour by hour (UTC), oldest first, every hour listed (zeros"
                    + " included): what the console's chart draws") List<HourView> hours) {
    }

    public record HourView(@Schema(example = "2026-11-22T10:00:00Z") Instant hour,
            @Schema(description = "Deliveries delivered in that hour", example = "118") long delivered,
            @Schema(description = "Attempts that failed in that hour (each retried or dead-lettered)", example = "4") long failedAttempts,
            @Schema(description = "Deliveries dead-lettered in that hour", example = "1") long dead) {
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
    private final DeliveryQueries deliveries;

    public AdminResource(Clock clock, ObjectMapper json, DeliveryQueries deliveries) {
        this.clock = clock;
        this.json = json;
        this.deliveries = deliveries;
    }

    @GET
    @Path("/deliveries/summary")
    @Operation(summary = "Deliveries finished over the last hour and day by status, the backlog, and the disabled"
            + " endpoints")
    @APIResponse(responseCode = "200", description = "The summary, counted now")
    public Summary summary() {
        Instant now = clock.instant();
        Optional<DeliveryQueries.Row> oldest = deliveries.oldestQueued();
        Instant first = now.minus(Duration.ofHours(23)).truncatedTo(ChronoUnit.HOURS);
        List<DeliveryQueries.Hour> day = deliveries.hours(now.minus(Duration.ofDays(1)).truncatedTo(ChronoUnit.HOURS));
        Map<Instant, DeliveryQueries.Hour> byHour = new LinkedHashMap<>();
        day.forEach(h -> byHour.put(h.hour(), h));
        List<HourView> hours = new java.util.ArrayList<>(24);
        for (Instant h = first; !h.isAfter(now); h = h.plus(Duration.ofHours(1))) {
            DeliveryQueries.Hour x = byHour.get(h);
            hours.add(x == null
                    ? new HourView(h, 0, 0, 0)
                    : new HourView(h, x.delivered(), x.failedAttempts(), x.dead()));
        }
        return new Summary(now, byStatus(now.minus(Duration.ofHours(1)), day), byStatus(now.minus(Duration.ofDays(1)),
                day), deliveries.queued(), deliveries.held(), deliveries.dead(),
                oldest.map(DeliveryQueries.Row::createdAt).orElse(null),
                oldest.map(DeliveryQueries.Row::deliveryId).orElse(null), deliveries.disabledEndpoints(),
                deliveries.disabled(DISABLED_LISTED).stream().map(AdminResource::endpointView).toList(), hours);
    }

    @GET
    @Path("/deliveries/{id}")
    @Operation(summary = "One delivery, with the event it carries (its message id, payload and intake request id) and"
            + " each attempt with the signature headers it sent")
    @APIResponse(responseCode = "200", description = "The delivery and its event")
    @APIResponse(responseCode = "404", description = NOT_FOUND)
    public DeliveryDetail delivery(
            @PathParam("id") @Parameter(example = "0190f3c2-7a41-7c3e-9d2a-5b8e1f4a6c01") String id) {
        DeliveryQueries.Row d = existing(id);
        return new DeliveryDetail(d.deliveryId(), d.eventId(), d.accountId(), d.messageId(), d.status(), d.attempts(),
                d.nextAttemptAt(), d.lastError(), d.deliveredAt(), d.createdAt(), d.requestId(), d.payload(),
                attemptsOf(d.deliveryId()));
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
        return deliveries.list(new DeliveryQueries.Filter(status, accountId,
                createdAfter == null ? null : instant("created_after", createdAfter),
                createdBefore == null ? null : instant("created_before", createdBefore), beforeId, messageId, n))
                .stream().map(DeliveryView::of).toList();
    }

    @GET
    @Path("/deliveries/{id}/attempts")
    @Operation(summary = "Each attempt of a delivery, in the order they were made, with the signature headers it sent")
    @APIResponse(responseCode = "200", description = "The attempts")
    @APIResponse(responseCode = "404", description = NOT_FOUND)
    public List<AttemptView> attempts(@PathParam("id") String id) {
        existing(id);
        return attemptsOf(id);
    }

    /** By their start: before attempt numbers went on over a retry, a retried delivery numbered them from 1 again. */
    private List<AttemptView> attemptsOf(String deliveryId) {
        return deliveries.attempts(deliveryId).stream().map(a -> new AttemptView(a.attempt(), a.startedAt(),
                a.latencyMs(), a.statusCode(), a.error(), headers(a.signatureHeaders()))).toList();
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
    @Operation(summary = "Queue a delivery again now, with its full retry schedule; its attempt numbers go on from the"
            + " highest recorded")
    @APIResponse(responseCode = "200", description = "The delivery, PENDING and due now")
    @APIResponse(responseCode = "404", description = NOT_FOUND)
    @APIResponse(responseCode = "409", description = "ALREADY_DELIVERED; DELIVERY_IN_FLIGHT: it is being attempted,"
            + " wait for its outcome")
    public DeliveryView retry(@PathParam("id") String id) {
        switch (deliveries.retry(id)) {
            case NOT_FOUND -> throw notFound(id);
            case DELIVERED -> throw new ApiException(409, "ALREADY_DELIVERED", "Delivery " + id
                    + " was delivered; nothing to retry");
            case IN_FLIGHT -> throw new ApiException(409, "DELIVERY_IN_FLIGHT", "Delivery " + id
                    + " is being attempted now; its outcome is recorded within seconds (list its attempts)");
            default -> {
                return DeliveryView.of(existing(id));
            }
        }
    }

    @POST
    @Path("/accounts/{accountId}/replay-dead-letters")
    @Operation(summary = "Queue every dead-lettered delivery of the account again")
    @APIResponse(responseCode = "200", description = "How many were queued")
    public Replayed replay(@PathParam("accountId") @Parameter(example = EXAMPLE_ACCOUNT) String accountId) {
        return new Replayed(accountId, deliveries.replay(accountId));
    }

    @GET
    @Path("/accounts/{accountId}/endpoint")
    @Operation(summary = "The account endpoint's state: failure streak, disabled or not, held deliveries")
    @APIResponse(responseCode = "200", description = "The endpoint (enabled with no failures when never seen)")
    public EndpointView endpoint(@PathParam("accountId") @Parameter(example = EXAMPLE_ACCOUNT) String accountId) {
        return endpointView(deliveries.endpoint(accountId));
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
        boolean noReason = body == null || body.reason() == null || body.reason().isBlank();
        return endpointView(deliveries.disable(accountId, noReason ? "disabled by an operator" : body.reason()));
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
        return endpointView(deliveries.enable(accountId));
    }

    private static EndpointView endpointView(DeliveryQueries.EndpointRow s) {
        return new EndpointView(s.accountId(), s.disabledAt() == null, s.consecutiveFailures(), s.failingSince(),
                s.lastFailureAt(), s.disabledAt(), s.disabledBy(), s.disabledReason(), s.held());
    }

    /** The counts of an hour window from the hourly rows (finished), with the queue's rows created since (pending). */
    private Map<String, Long> byStatus(Instant since, List<DeliveryQueries.Hour> day) {
        Map<String, Long> counts = new LinkedHashMap<>();
        counts.put(DeliveryStore.PENDING, deliveries.queuedSince(since));
        Instant from = since.truncatedTo(ChronoUnit.HOURS);
        counts.put(DeliveryStore.DELIVERED, day.stream().filter(h -> !h.hour().isBefore(from))
                .mapToLong(DeliveryQueries.Hour::delivered).sum());
        counts.put(DeliveryStore.DEAD, day.stream().filter(h -> !h.hour().isBefore(from))
                .mapToLong(DeliveryQueries.Hour::dead).sum());
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

    private DeliveryQueries.Row existing(String id) {
        return deliveries.delivery(id).orElseThrow(() -> notFound(id));
    }

    private static ApiException notFound(String id) {
        return new ApiException(404, "DELIVERY_NOT_FOUND", "No delivery " + id);
    }
}
