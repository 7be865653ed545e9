package com.convplatform.hook.delivery;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * management-service's account lookup (contracts.md), as a Quarkus REST client: URL and time-outs under
 * {@code quarkus.rest-client.management.*}, the request id added by service-support's filter. Used only through
 * {@link AccountDirectory}, which owns the retry, circuit breaker and cache.
 */
@Path("/internal/v1/accounts")
@RegisterRestClient(configKey = "management")
interface ManagementClient {
    /** The fields of an account this service reads. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record Account(@JsonProperty("account_id") String accountId, @JsonProperty("webhook_url") String webhookUrl) {
    }

    @GET
    @Path("/{accountId}")
    @Produces(MediaType.APPLICATION_JSON)
    Account account(@HeaderParam("Authorization") String authorization, @PathParam("accountId") String accountId);
}
