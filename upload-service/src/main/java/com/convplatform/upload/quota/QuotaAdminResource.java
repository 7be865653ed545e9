package com.convplatform.upload.quota;

import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import com.convplatform.support.Roles;
import com.fasterxml.jackson.annotation.JsonProperty;

/** The operator API: an account's use of its upload quotas today, to answer "why is this account refused 429?". */
@Path("/admin/v1/quotas/{accountId}")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed(Roles.OPERATOR)
@Tag(name = "operator", description = "Operator API (Authorization: Bearer <upload.admin.api-key>)")
public class QuotaAdminResource {
    public record QuotaUse(
            @JsonProperty("account_id") String accountId,
            @JsonProperty("day") @Schema(description = "Today, UTC: the day the bytes are counted in") String day,
            @JsonProperty("bytes") @Schema(description = "The declared lengths of today's accepted uploads (those"
                    + " being read included)") long bytes,
            @JsonProperty("bytes_per_day") @Schema(description = "upload.quota.bytes-per-day; 0: no quota") long bytesPerDay,
            @JsonProperty("uploads") @Schema(description = "Uploads started today that the quota let through") long uploads,
            @JsonProperty("uploads_this_minute") long uploadsThisMinute,
            @JsonProperty("uploads_per_minute") @Schema(description = "upload.quota.uploads-per-minute; 0: no quota") int uploadsPerMinute) {
    }

    private final UploadQuota quota;

    public QuotaAdminResource(UploadQuota quota) {
        this.quota = quota;
    }

    @GET
    @Operation(summary = "An account's use of its upload quotas today (UTC)")
    @APIResponse(responseCode = "200", description = "Today's use; all zero for an account that has not uploaded today")
    public QuotaUse use(@PathParam("accountId") String accountId) {
        return quota.use(accountId);
    }
}
