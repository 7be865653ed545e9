package com.convplatform.console.api;

import java.time.Instant;
import java.util.List;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.rest.client.annotation.RegisterProvider;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

import com.convplatform.api.hook.HookAdmin.AttemptView;
import com.convplatform.api.hook.HookAdmin.DeliveryDetail;
import com.convplatform.api.hook.HookAdmin.DeliveryView;
import com.convplatform.api.hook.HookAdmin.DisableRequest;
import com.convplatform.api.hook.HookAdmin.EndpointView;
import com.convplatform.api.hook.HookAdmin.Replayed;
import com.convplatform.api.hook.HookAdmin.Summary;

/** hook-service's operator API ({@code /admin/v1}, its types platform-api's) and its public certificate document. */
@RegisterProvider(OperatorHeader.class)
@RegisterRestClient(configKey = "hook")
public interface HookApi {
    record CertificateDocument(String certificate, Instant notAfter, String sha256Fingerprint) {
    }

    @GET
    @Path("/admin/v1/deliveries")
    List<DeliveryView> deliveries(@QueryParam("status") String status, @QueryParam("account_id") String accountId,
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
    List<AttemptView> attempts(@PathParam("id") String id);

    @POST
    @Path("/admin/v1/deliveries/{id}/retry")
    DeliveryView retry(@PathParam("id") String id);

    @POST
    @Path("/admin/v1/accounts/{accountId}/replay-dead-letters")
    Replayed replay(@PathParam("accountId") String accountId);

    @GET
    @Path("/admin/v1/accounts/{accountId}/endpoint")
    EndpointView endpoint(@PathParam("accountId") String accountId);

    @POST
    @Path("/admin/v1/accounts/{accountId}/endpoint/disable")
    @Consumes(MediaType.APPLICATION_JSON)
    EndpointView disable(@PathParam("accountId") String accountId, DisableRequest request);

    @POST
    @Path("/admin/v1/accounts/{accountId}/endpoint/enable")
    EndpointView enable(@PathParam("accountId") String accountId);

    @GET
    @Path("/platform/hooks/certificate/")
    CertificateDocument certificate();

    /** The operator actions this service recorded, newest first (before_id: the last id of the page before). */
    @GET
    @Path("/admin/v1/audit")
    List<AuditRow> audit(@QueryParam("before_id") Long beforeId, @QueryParam("limit") Integer limit,
            @QueryParam("operator") String operator);
}
