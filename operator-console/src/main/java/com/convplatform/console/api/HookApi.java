package com.convplatform.console.api;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.rest.client.annotation.RegisterProvider;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

/** hook-service's operator API ({@code /admin/v1}) and its public certificate document. */
@RegisterProvider(OperatorHeader.class)
@RegisterRestClient(configKey = "hook")
public interface HookApi {
    record Delivery(String deliveryId, String eventId, String accountId, String status, int attempts,
            Instant nextAttemptAt, String lastError, Instant deliveredAt, Instant createdAt) {
    }

    /** {@code attemptHistory}: every attempt in the order they were made; null from a hook-service before it. */
    record DeliveryDetail(String deliveryId, String eventId, String accountId, long messageId, String status,
            int attempts, Instant nextAttemptAt, String lastError, Instant deliveredAt, Instant createdAt,
            String requestId, String payload, List<Attempt> attemptHistory) {
    }

    /**
     * {@code signatureHeaders}: the signature headers the attempt sent, name to value; empty when none were recorded,
     * null from a hook-service before it recorded them.
     */
    record Attempt(int attempt, Instant startedAt, long latencyMs, Integer statusCode, String error,
            Map<String, String> signatureHeaders) {
    }

    record Endpoint(String accountId, boolean enabled, int consecutiveFailures, Instant failingSince,
            Instant lastFailureAt, Instant disabledAt, String disabledBy, String disabledReason, long heldDeliveries) {
    }

    record Summary(Instant at, Map<String, Long> lastHour, Map<String, Long> lastDay, long pending, long held,
            long dead, Instant oldestUndeliveredAt, String oldestUndeliveredId, long disabledCount,
            List<Endpoint> disabledEndpoints, List<HourView> hours) {
    }

    /** One hour of the last 24 (UTC, oldest first): delivered, failed attempts, dead-lettered. */
    record HourView(Instant hour, long delivered, long failedAttempts, long dead) {
    }

    record Replayed(String accountId, int requeued) {
    }

    record DisableRequest(String reason) {
    }

    record CertificateDocument(String certificate, Instant notAfter, String sha256Fingerprint) {
    }

    @GET
    @Path("/admin/v1/deliveries")
    List<Delivery> deliveries(@QueryParam("status") String status, @QueryParam("account_id") String accountId,
            @QueryParam("created_after") String createdAfter, @QueryParam("created_before") String createdBefore,
            @QueryParam("before_id") String beforeId, @QueryParam("limit") Integer limit,
            @QueryParam("message_id") Long messageId);

    @GET
    @Path("/admin/v1/deliveries/summary")
    Summary summary();

    @GET
    @Path("/admin/v1/deliveries/{id}")
    DeliveryDetail delivery(@PathParam("id") String id);

    @GET
    @Path("/admin/v1/deliveries/{id}/attempts")
    List<Attempt> attempts(@PathParam("id") String id);

    @POST
    @Path("/admin/v1/deliveries/{id}/retry")
    Delivery retry(@PathParam("id") String id);

    @POST
    @Path("/admin/v1/accounts/{accountId}/replay-dead-letters")
    Replayed replay(@PathParam("accountId") String accountId);

    @GET
    @Path("/admin/v1/accounts/{accountId}/endpoint")
    Endpoint endpoint(@PathParam("accountId") String accountId);

    @POST
    @Path("/admin/v1/accounts/{accountId}/endpoint/disable")
    @Consumes(MediaType.APPLICATION_JSON)
    Endpoint disable(@PathParam("accountId") String accountId, DisableRequest request);

    @POST
    @Path("/admin/v1/accounts/{accountId}/endpoint/enable")
    Endpoint enable(@PathParam("accountId") String accountId);

    @GET
    @Path("/platform/hooks/certificate/")
    CertificateDocument certificate();

    /** The operator actions this service recorded, newest first (before_id: the last id of the page before). */
    @GET
    @Path("/admin/v1/audit")
    List<AuditRow> audit(@QueryParam("before_id") Long beforeId, @QueryParam("limit") Integer limit,
            @QueryParam("operator") String operator);
}
