package com.convplatform.hook.admin;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import com.convplatform.hook.admin.AdminResource.AttemptView;
import com.convplatform.hook.admin.AdminResource.EndpointView;
import com.convplatform.hook.delivery.Delivery;
import com.convplatform.hook.delivery.Delivery.EndpointState;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * What an operator looks at first (the operator console's overview and delivery pages): counts by status over the
 * last hour and day, the backlog and its oldest event, the disabled endpoints; and one delivery with the event it
 * carries and its attempts. Served by {@link AdminResource} ({@code /admin/v1/deliveries/summary},
 * {@code /admin/v1/deliveries/{id}}, {@code /admin/v1/deliveries/{id}/attempts}).
 */
@ApplicationScoped
public class DeliveryInsights {
    /** At most this many disabled endpoints are listed in the summary (the count is exact). */
    static final int DISABLED_LISTED = 100;

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

    private static final TypeReference<LinkedHashMap<String, String>> HEADERS = new TypeReference<>() {
    };

    private final Clock clock;
    private final ObjectMapper json;

    public DeliveryInsights(Clock clock, ObjectMapper json) {
        this.clock = clock;
        this.json = json;
    }

    @Transactional
    public Summary summary(Function<String, EndpointView> endpoint) {
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
                disabled.stream().map(s -> endpoint.apply(s.accountId)).toList());
    }

    @Transactional
    public DeliveryDetail delivery(String id) {
        Delivery d = AdminResource.existing(id);
        Object[] event = (Object[]) Delivery.getEntityManager()
                .createNativeQuery("select message_id, payload, request_id from hook_event where id = ?1")
                .setParameter(1, d.eventId).getSingleResult();
        return new DeliveryDetail(d.id, d.eventId, d.accountId, ((Number) event[0]).longValue(), d.status,
                d.attempts, d.nextAttemptAt, d.lastError, d.deliveredAt, d.createdAt, (String) event[2],
                (String) event[1], attempts(d.id));
    }

    /**
     * The delivery's attempts in the order they were made (by their start: before attempt numbers went on over a
     * retry, a retried delivery numbered them from 1 again).
     */
    List<AttemptView> attempts(String deliveryId) {
        return Delivery.Attempt.<Delivery.Attempt>list("deliveryId = ?1 order by startedAt, attempt, id", deliveryId)
                .stream().map(a -> new AttemptView(a.attempt, a.startedAt, a.latencyMs, a.statusCode, a.error,
                        headers(a.signatureHeaders)))
                .toList();
    }

    /** The stored JSON object of name to value; empty when none were recorded. */
    private Map<String, String> headers(String stored) {
        if (stored == null) {
            return Map.of();
        }
        try {
            return json.readValue(stored, HEADERS);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("A stored attempt's signature headers are not a JSON object", e);
        }
    }

    /** The id of the account's event with that message id, or null. */
    static String eventOf(String accountId, long messageId) {
        List<?> ids = Delivery.getEntityManager()
                .createNativeQuery("select id from hook_event where account_id = ?1 and message_id = ?2")
                .setParameter(1, accountId).setParameter(2, messageId).getResultList();
        return ids.isEmpty() ? null : (String) ids.get(0);
    }

    private static Map<String, Long> byStatus(Instant since) {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (String status : List.of(Delivery.PENDING, Delivery.DELIVERED, Delivery.DEAD)) {
            counts.put(status, 0L);
        }
        List<Object[]> rows = Delivery.getEntityManager().createQuery(
                "select d.status, count(d) from Delivery d where d.createdAt >= ?1 group by d.status", Object[].class)
                .setParameter(1, since).getResultList();
        rows.forEach(r -> counts.put((String) r[0], ((Number) r[1]).longValue()));
        return counts;
    }
}
