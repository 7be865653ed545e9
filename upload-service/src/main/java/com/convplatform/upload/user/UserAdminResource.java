package com.convplatform.upload.user;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import jakarta.transaction.Transactional;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import com.convplatform.support.ApiException;
import com.convplatform.support.ApiKeyGuard;
import com.convplatform.upload.config.UploadConfig;
import com.fasterxml.jackson.annotation.JsonProperty;

/** The operator API: register, list and delete the users who may upload for a business. */
@Path("/admin/v1/users")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "operator", description = "Operator API (Authorization: Bearer <upload.admin.api-key>)")
public class UserAdminResource {

    public record NewUser(@JsonProperty("auth_id") String authId, @JsonProperty("business_id") String businessId) {
    }

    public record UserView(@JsonProperty("auth_id") String authId, @JsonProperty("business_id") String businessId,
            @JsonProperty("created_at") Instant createdAt) {
    }

    private final UploadConfig config;
    private final Clock clock;

    public UserAdminResource(UploadConfig config, Clock clock) {
        this.config = config;
        this.clock = clock;
    }

    static void auth(UploadConfig config, String authorization) {
        ApiKeyGuard.require(config.admin().apiKey(), authorization, "operator");
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Transactional
    public Response register(@HeaderParam("Authorization") String authorization, NewUser in) {
        auth(config, authorization);
        if (in == null || in.authId() == null || !in.authId().matches("[A-Za-z0-9]{1,64}")) {
            throw new ApiException(400, "INVALID_AUTH_ID", "auth_id must be 1 to 64 letters and digits");
        }
        if (in.businessId() == null || !in.businessId().matches("[0-9]{1,32}")) {
            throw new ApiException(400, "INVALID_BUSINESS_ID", "business_id must be 1 to 32 digits");
        }
        if (AppUser.count("authId = ?1 and businessId = ?2", in.authId(), in.businessId()) > 0) {
            throw new ApiException(409, "USER_EXISTS", "That user is already registered for that business");
        }
        AppUser u = new AppUser();
        u.id = UUID.randomUUID().toString();
        u.authId = in.authId();
        u.businessId = in.businessId();
        u.createdAt = clock.instant();
        u.persist();
        return Response.status(201).entity(new UserView(u.authId, u.businessId, u.createdAt)).build();
    }

    @GET
    public List<UserView> list(@HeaderParam("Authorization") String authorization,
            @QueryParam("business_id") String businessId) {
        auth(config, authorization);
        List<AppUser> users = businessId == null
                ? AppUser.listAll()
                : AppUser.list("businessId = ?1 order by authId", businessId);
        return users.stream().map(u -> new UserView(u.authId, u.businessId, u.createdAt)).toList();
    }

    @DELETE
    @Path("/{businessId}/{authId}")
    @Transactional
    public Response delete(@HeaderParam("Authorization") String authorization,
            @PathParam("businessId") String businessId, @PathParam("authId") String authId) {
        auth(config, authorization);
        long n = AppUser.delete("authId = ?1 and businessId = ?2", authId, businessId);
        if (n == 0) {
            throw new ApiException(404, "USER_NOT_FOUND", "No such user for that business");
        }
        return Response.noContent().build();
    }
}
