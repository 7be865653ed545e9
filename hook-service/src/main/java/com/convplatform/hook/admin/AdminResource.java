package com.convplatform.hook.admin;

import static com.convplatform.api.hook.HookAdmin.EXAMPLE_ACCOUNT;

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
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import com.convplatform.api.hook.HookAdmin.AttemptView;
import com.convplatform.api.hook.HookAdmin.DeliveryDetail;
import com.convplatform.api.hook.HookAdmin.DeliveryView;
import com.convplatform.api.hook.HookAdmin.DisableRequest;
import com.convplatform.api.hook.HookAdmin.EndpointView;
import com.convplatform.api.hook.HookAdmin.HourView;
import com.convplatform.api.hook.HookAdmin.Replayed;
import com.convplatform.api.hook.HookAdmin.Summary;
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
    private static final int DISABLED_LISTED = 100;

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
                .stream().map(AdminResource::view).toList();
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
                return view(existing(id));
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

    private static DeliveryView view(DeliveryQueries.Row d) {
        return new DeliveryView(d.deliveryId(), d.eventId(), d.accountId(), d.status(), d.attempts(),
                d.nextAttemptAt(), d.lastError(), d.deliveredAt(), d.createdAt());
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
