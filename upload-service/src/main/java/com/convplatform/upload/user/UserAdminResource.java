package com.convplatform.upload.user;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;

import jakarta.annotation.security.RolesAllowed;
import jakarta.transaction.Transactional;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;
import org.jboss.resteasy.reactive.ResponseStatus;

import com.convplatform.support.ApiException;
import com.convplatform.support.Roles;
import com.convplatform.support.audit.AuditTarget;
import com.convplatform.support.audit.OperatorAudit;
import com.fasterxml.jackson.annotation.JsonProperty;

import io.quarkus.narayana.jta.QuarkusTransaction;

/** The operator API: register, list and delete the users who may upload for a business. */
@Path("/admin/v1/users")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed(Roles.OPERATOR)
@Tag(name = "operator", description = "Operator API (Authorization: Bearer <upload.admin.api-key>)")
public class UserAdminResource {
    static final String INVALID_AUTH_ID = "INVALID_AUTH_ID: auth_id must be 1 to 64 letters and digits";
    static final String INVALID_BUSINESS_ID = "INVALID_BUSINESS_ID: business_id must be 1 to 32 digits";

    public record NewUser(
            @JsonProperty("auth_id") @NotNull(message = INVALID_AUTH_ID) @Pattern(regexp = "[A-Za-z0-9]{1,64}", message = INVALID_AUTH_ID) @Schema(example = "user42") String authId,
            @JsonProperty("business_id") @NotNull(message = INVALID_BUSINESS_ID) @Pattern(regexp = "[0-9]{1,32}", message = INVALID_BUSINESS_ID) @Schema(example = "1001") String businessId) {
    }

    public record UserView(@JsonProperty("auth_id") String authId, @JsonProperty("business_id") String businessId,
            @JsonProperty("created_at") Instant createdAt) implements AuditTarget {
        /** The auth_id is personal data, and the audit trail is never erased: only its SHA-256 is recorded. */
        @Override
        public String auditTarget() {
            return "business_id=" + businessId + ", authId=" + OperatorAudit.personal(authId);
        }
    }

    private final Clock clock;

    public UserAdminResource(Clock clock) {
        this.clock = clock;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @ResponseStatus(201)
    @Operation(summary = "Register a user who may upload for a business")
    @APIResponse(responseCode = "201", description = "The user")
    @APIResponse(responseCode = "400", description = "INVALID_AUTH_ID, INVALID_BUSINESS_ID, MALFORMED_JSON")
    @APIResponse(responseCode = "409", description = "USER_EXISTS: already registered for that business")
    public UserView register(@NotNull(message = INVALID_AUTH_ID) @Valid NewUser in) {
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS); // as the column keeps it
        // One statement, and the unique key decides: a concurrent registration of the same user waits for the other
        // and then inserts nothing, so the loser gets 409 without a failed insert in the log.
        int inserted = QuarkusTransaction.requiringNew().call(() -> AppUser.getEntityManager().createNativeQuery(
                "insert into app_user (id, auth_id, business_id, created_at) values (?1, ?2, ?3, ?4)"
                        + " on conflict (business_id, auth_id) do nothing")
                .setParameter(1, UUID.randomUUID().toString()).setParameter(2, in.authId())
                .setParameter(3, in.businessId()).setParameter(4, now).executeUpdate());
        if (inserted == 0) {
            throw new ApiException(409, "USER_EXISTS", "That user is already registered for that business");
        }
        return new UserView(in.authId(), in.businessId(), now);
    }

    @GET
    @Operation(summary = "The registered users, of one business when business_id is given")
    public List<UserView> list(@QueryParam("business_id") String businessId) {
        List<AppUser> users = businessId == null
                ? AppUser.listAll()
                : AppUser.list("businessId = ?1 order by authId", businessId);
        return users.stream().map(u -> new UserView(u.authId, u.businessId, u.createdAt)).toList();
    }

    @DELETE
    @Path("/{businessId}/{authId}")
    @Transactional
    @ResponseStatus(204)
    @Operation(summary = "Remove a user: their next upload is refused")
    @APIResponse(responseCode = "204", description = "Removed")
    @APIResponse(responseCode = "404", description = "USER_NOT_FOUND: no such user for that business")
    public void delete(@PathParam("businessId") String businessId, @PathParam("authId") String authId) {
        if (AppUser.delete("authId = ?1 and businessId = ?2", authId, businessId) == 0) {
            throw new ApiException(404, "USER_NOT_FOUND", "No such user for that business");
        }
    }
}
