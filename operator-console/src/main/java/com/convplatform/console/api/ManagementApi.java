package com.convplatform.console.api;

import java.time.Instant;
import java.util.List;

import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

/** management-service's operator API ({@code /admin/v1}), with the operator key from {@code console.management.*}. */
@RegisterRestClient(configKey = "management")
@Path("/admin/v1")
public interface ManagementApi {
    record Account(String accountId, String name, String fqdn, String businessId, String webhookUrl,
            Instant createdAt, boolean requireSha256) {
    }

    record Client(String clientId, String name, Instant createdAt) {
    }

    record Certificate(String certificateUuid, String sha256Fingerprint, Instant notAfter, Instant createdAt,
            Instant revokedAt) {
    }

    @GET
    @Path("/accounts")
    List<Account> accounts();

    @GET
    @Path("/accounts/{accountId}")
    Account account(@PathParam("accountId") String accountId);

    @GET
    @Path("/accounts/{accountId}/clients")
    List<Client> clients(@PathParam("accountId") String accountId);

    @GET
    @Path("/accounts/{accountId}/certificates")
    List<Certificate> certificates(@PathParam("accountId") String accountId);

    @DELETE
    @Path("/accounts/{accountId}/certificates/{certificateUuid}")
    void revoke(@PathParam("accountId") String accountId, @PathParam("certificateUuid") String certificateUuid);
}
