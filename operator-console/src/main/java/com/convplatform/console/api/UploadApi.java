package com.convplatform.console.api;

import java.time.Instant;
import java.util.List;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;

import org.eclipse.microprofile.rest.client.annotation.RegisterProvider;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

/** upload-service's operator API ({@code /admin/v1}). */
@RegisterProvider(OperatorHeader.class)
@RegisterRestClient(configKey = "upload")
@Path("/admin/v1")
public interface UploadApi {
    record User(String authId, String businessId, Instant createdAt) {
    }

    /** The hand-off outbox: events waiting for hook-service, the oldest one's wait, upload.outbox.stuck-after. */
    record Outbox(long pending, Instant oldestSince, long oldestAgeSeconds, String stuckAfter, long stuckAfterSeconds,
            boolean stuck) {
    }

    /** One uploaded message; handoff is HANDED_OFF or PENDING. */
    record Message(long messageId, Instant createdAt, String accountId, String businessId, String authId,
            int messageType, String fileName, String contentType, long sizeBytes, String handoff,
            int handoffAttempts, String handoffLastError) {
    }

    @GET
    @Path("/users")
    List<User> users(@QueryParam("business_id") String businessId);

    @GET
    @Path("/outbox")
    Outbox outbox();

    /** The account's messages, newest first, at most {@code limit}, older than the message {@code beforeId}. */
    @GET
    @Path("/messages")
    List<Message> messages(@QueryParam("account_id") String accountId, @QueryParam("limit") Integer limit,
            @QueryParam("before_id") Long beforeId);

    /** The operator actions this service recorded, newest first (before_id: the last id of the page before). */
    @GET
    @Path("/audit")
    List<AuditRow> audit(@QueryParam("before_id") Long beforeId, @QueryParam("limit") Integer limit,
            @QueryParam("operator") String operator);
}
