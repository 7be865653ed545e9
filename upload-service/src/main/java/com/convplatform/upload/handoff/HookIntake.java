package com.convplatform.upload.handoff;

import java.util.List;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

import com.convplatform.support.RequestIds;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * hook-service's intake (docs/contracts.md), at {@code upload.hook-service.url}; only {@link HookIntakeClient} calls
 * it. The answers are read by the caller ({@code quarkus.rest-client.disable-default-mapper}), so that a 404 (a
 * hook-service without the batch intake) and a refusal can be told from a failure.
 */
@RegisterRestClient(configKey = "hook-intake")
@Path("/internal/v1/events")
@Consumes(MediaType.APPLICATION_JSON)
@Produces(MediaType.APPLICATION_JSON)
interface HookIntake {
    /** Up to 32 events, each with its upload's request id; answers 200 with one result per event. */
    @POST
    @Path("/batch")
    Response batch(@HeaderParam("Authorization") String authorization, Batch batch);

    /** One event, without a request id in its body; 202 when accepted (or accepted before). */
    @POST
    Response single(@HeaderParam("Authorization") String authorization,
            @HeaderParam(RequestIds.HEADER) String requestId, ObjectNode event);

    record Batch(List<ObjectNode> events) {
    }

    record BatchAnswer(List<Result> results) {
    }

    record Result(int status, @JsonProperty("error_code") String errorCode,
            @JsonProperty("error_message") String errorMessage) {
    }
}
