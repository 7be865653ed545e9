package com.convplatform.console.api;

import java.time.Instant;
import java.util.List;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;

import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

/** upload-service's operator API ({@code /admin/v1}). */
@RegisterRestClient(configKey = "upload")
@Path("/admin/v1")
public interface UploadApi {
    record User(String authId, String businessId, Instant createdAt) {
    }

    @GET
    @Path("/users")
    List<User> users(@QueryParam("business_id") String businessId);
}
