package com.convplatform.hook.admin;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import com.convplatform.api.hook.HookAdmin.AttemptView;
import com.convplatform.api.hook.HookAdmin.DeliveryDetail;
import com.convplatform.api.hook.HookAdmin.DeliveryView;
import com.convplatform.api.hook.HookAdmin.EndpointView;
import com.convplatform.api.hook.HookAdmin.HourView;
import com.convplatform.api.hook.HookAdmin.Replayed;
import com.convplatform.api.hook.HookAdmin.Summary;
import com.convplatform.hook.delivery.DeliveryQueries;
import com.convplatform.hook.delivery.DeliveryStore;
import com.convplatform.support.ApiException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

/** The operator API's rules over deliveries and endpoints, answering platform-api's admin views. */
@ApplicationScoped
class AdminService {
    private static final int DISABLED_LISTED = 100;

    private final Clock clock;
    private final ObjectMapper json;
    private final DeliveryQueries deliveries;

    AdminService(Clock clock, ObjectMapper json, DeliveryQueries deliveries) {
        this.clock = clock;
        this.json = json;
        this.deliveries = deliveries;
    }

    Summary summary() {
        Instant now = clock.instant();
        Optional<DeliveryQueries.Row> oldest = deliveries.oldestQueued();
        Instant first = now.minus(Duration.ofHours(23)).truncatedTo(ChronoUnit.HOURS);
        List<DeliveryQueries.Hour> day = deliveries.hours(now.minus(Duration.ofDays(1)).truncatedTo(ChronoUnit.HOURS));
        Map<Instant, DeliveryQueries.Hour> byHour = new LinkedHashMap<>();
        day.forEach(h -> byHour.put(h.hour(), h));
        List<HourView> hours = new ArrayList<>(24);
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
                deliveries.disabled(DISABLED_LISTED).stream().map(AdminService::endpointView).toList(), hours);
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

    DeliveryDetail delivery(String id) {
        DeliveryQueries.Row d = existing(id);
        return new DeliveryDetail(d.deliveryId(), d.eventId(), d.accountId(), d.messageId(), d.status(), d.attempts(),
                d.nextAttemptAt(), d.lastError(), d.deliveredAt(), d.createdAt(), d.requestId(), d.payload(),
                attemptsOf(d.deliveryId()));
    }

    List<DeliveryView> list(DeliveryQueries.Filter filter) {
        return deliveries.list(filter).stream().map(AdminService::view).toList();
    }

    List<AttemptView> attempts(String id) {
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

    /** Requeues the delivery unless it is unknown (404), delivered or being attempted (409). */
    DeliveryView retry(String id) {
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

    Replayed replay(String accountId) {
        return new Replayed(accountId, deliveries.replay(accountId));
    }

    EndpointView endpoint(String accountId) {
        return endpointView(deliveries.endpoint(accountId));
    }

    /** A blank reason is the default one. */
    EndpointView disable(String accountId, String reason) {
        boolean noReason = reason == null || reason.isBlank();
        return endpointView(deliveries.disable(accountId, noReason ? "disabled by an operator" : reason));
    }

    EndpointView enable(String accountId) {
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

    private DeliveryQueries.Row existing(String id) {
        return deliveries.delivery(id).orElseThrow(() -> notFound(id));
    }

    private static ApiException notFound(String id) {
        return new ApiException(404, "DELIVERY_NOT_FOUND", "No delivery " + id);
    }
}
