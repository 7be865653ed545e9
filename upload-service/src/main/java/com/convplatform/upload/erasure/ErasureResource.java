package com.convplatform.upload.erasure;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;

import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.core.UriInfo;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;
import org.jboss.resteasy.reactive.ResponseStatus;

import com.convplatform.support.ApiException;
import com.convplatform.support.QueryParameters;
import com.convplatform.support.Roles;
import com.convplatform.support.audit.AuditTarget;
import com.convplatform.support.audit.OperatorAudit;
import com.convplatform.upload.config.UploadConfig;
import com.fasterxml.jackson.annotation.JsonProperty;

/** The operator API: erase an upload user (a privacy request), and the record of every erasure. */
@Path("/admin/v1/erasures")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed(Roles.OPERATOR)
@Tag(name = "operator", description = "Operator API (Authorization: Bearer <upload.admin.api-key>)")
public class ErasureResource {
    static final String INVALID_AUTH_ID = "INVALID_AUTH_ID: auth_id must be 1 to 64 letters and digits";
    static final String INVALID_BUSINESS_ID = "INVALID_BUSINESS_ID: business_id must be 1 to 32 digits";

    public record ErasureRequest(
            @JsonProperty("business_id") @NotNull(message = INVALID_BUSINESS_ID) @Pattern(regexp = "[0-9]{1,32}", message = INVALID_BUSINESS_ID) @Schema(example = "1001") String businessId,
            @JsonProperty("auth_id") @NotNull(message = INVALID_AUTH_ID) @Pattern(regexp = "[A-Za-z0-9]{1,64}", message = INVALID_AUTH_ID) @Schema(example = "user42") String authId) {
    }

    public record ErasureView(
            @JsonProperty("erasure_id") @Schema(example = "0193a5b2-c4d6-78f0-a1b2-c3d4e5f60718") String erasureId,
            @JsonProperty("business_id") @Schema(example = "1001") String businessId,
            @JsonProperty("auth_id_sha256") @Schema(description = "The user, as the SHA-256 (hex) of the auth_id: the"
                    + " record keeps no personal data", example = "c1ef1f2fbd7a1b5a3ef0b8c5d2c1d0e3a4f5b6c7d8e9f0a1b2c3d4e5f6a7b8c9") String authIdSha256,
            @JsonProperty("requested_by") @Schema(description = "Who asked: the operator named by the console (X-Operator), or the key when no"
                    + " person was named", example = "alice") String requestedBy,
            @JsonProperty("requested_at") Instant requestedAt,
            @JsonProperty("messages") @Schema(description = "Messages removed", example = "12") int messages,
            @JsonProperty("files") @Schema(description = "Stored files removed", example = "12") int files,
            @JsonProperty("outbox_events") @Schema(description = "Events removed before they reached hook-service", example = "0") int outboxEvents,
            @JsonProperty("hook_rows") @Schema(description = "Deliveries and their attempts removed at hook-service", example = "25") int hookRows,
            @JsonProperty("hook_passes") @Schema(description = "Passes made at hook-service (two: at once, then once more"
                    + " two outbox leases later)", example = "1") int hookPasses,
            @JsonProperty("status") @Schema(enumeration = {
                    "IN_PROGRESS", "COMPLETED"}) String status,
            @JsonProperty("completed_at") Instant completedAt,
            @JsonProperty("last_error") @Schema(description = "Why the last pass at hook-service failed (it is tried"
                    + " again every 30 s)") String lastError)
            implements
                AuditTarget{
        @Override
        public String auditTarget() {
            return "erasure_id=" + erasureId;
        }

        static ErasureView of(Erasures.Record r) {
            return new ErasureView(r.id(), r.businessId(), r.authIdSha256(), r.requestedBy(), r.requestedAt(),
                    r.messages(), r.files(), r.outboxEvents(), r.hookRows(), r.hookPasses(),
                    r.completedAt() == null ? "IN_PROGRESS" : "COMPLETED", r.completedAt(), r.lastError());
        }
    }

    private final Erasures erasures;
    private final Duration retryAfter;

    public ErasureResource(Erasures erasures, UploadConfig config) {
        this.erasures = erasures;
        this.retryAfter = config.erasure().retryAfter();
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @ResponseStatus(201)
    @Operation(summary = "Erase an upload user: their registration, messages and stored files here, and every delivery"
            + " of those messages at hook-service; recorded")
    @APIResponse(responseCode = "201", description = "The erasure's record: done here, COMPLETED once hook-service has"
            + " made its second pass (about two minutes)")
    @APIResponse(responseCode = "400", description = "INVALID_AUTH_ID, INVALID_BUSINESS_ID, MALFORMED_JSON")
    @APIResponse(responseCode = "503", description = "ERASURE_INCOMPLETE: stored files could not be deleted; the"
            + " erasure is recorded (its id in the message) with what was removed, and tries the rest again by itself")
    public ErasureView erase(@NotNull(message = INVALID_BUSINESS_ID) @Valid ErasureRequest in,
            @Context SecurityContext security, @HeaderParam(OperatorAudit.OPERATOR_HEADER) String operator) {
        try {
            return ErasureView.of(erasures.erase(in.businessId(), in.authId(),
                    operator != null ? operator : security.getUserPrincipal().getName()));
        } catch (Erasures.Incomplete e) {
            throw new ApiException(503, "ERASURE_INCOMPLETE", "The user's stored files could not all be deleted ("
                    + e.getMessage() + "); erasure " + e.erasureId + " is recorded with what was removed, and tries"
                    + " the rest again every " + retryAfter.toSeconds() + " s (GET /admin/v1/erasures/"
                    + e.erasureId + ")", 30);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @GET
    @Operation(summary = "The erasures made, newest first")
    @APIResponse(responseCode = "200", description = "At most limit erasures")
    @APIResponse(responseCode = "400", description = "INVALID_LIMIT, UNKNOWN_PARAMETER, REPEATED_PARAMETER")
    public List<ErasureView> list(@Context UriInfo uri,
            @QueryParam("business_id") @Parameter(description = "Only this business's", example = "1001") String businessId,
            @QueryParam("auth_id") @Parameter(description = "Only this user's (with business_id): was this user erased?") String authId,
            @QueryParam("limit") @Parameter(description = "1 to 1000; 100 when absent") String limit) {
        QueryParameters.onlyKnown(uri.getQueryParameters(), Set.of("business_id", "auth_id", "limit"));
        if (authId != null && businessId == null) {
            throw new ApiException(400, "BUSINESS_ID_REQUIRED", "auth_id is looked up within one business: give"
                    + " business_id too");
        }
        return erasures.list(businessId, authId, QueryParameters.limit(limit, 100, 1000)).stream()
                .map(ErasureView::of).toList();
    }

    @GET
    @Path("/{id}")
    @Operation(summary = "One erasure")
    @APIResponse(responseCode = "200", description = "The erasure's record")
    @APIResponse(responseCode = "404", description = "ERASURE_NOT_FOUND")
    public ErasureView one(@PathParam("id") String id) {
        return erasures.find(id).map(ErasureView::of)
                .orElseThrow(() -> new ApiException(404, "ERASURE_NOT_FOUND", "No erasure " + id));
    }
}
