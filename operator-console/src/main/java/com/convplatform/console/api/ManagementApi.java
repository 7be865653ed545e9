package com.convplatform.console.api;

import java.time.Instant;
import java.util.List;

import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;

import org.eclipse.microprofile.rest.client.annotation.RegisterProvider;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

/** management-service's operator API ({@code /admin/v1}), with the operator key from {@code console.management.*}. */
@RegisterProvider(OperatorHeader.class)
@RegisterRestClient(configKey = "management")
@Path("/admin/v1")
public interface ManagementApi {
    record Account(String accountId, String name, String fqdn, String businessId, String webhookUrl,
            Instant createdAt, boolean requireSha256, Instant disabledAt) {
    }

    record Client(String clientId, String name, Instant createdAt, Instant disabledAt) {
    }

    record Certificate(String certificateUuid, String sha256Fingerprint, Instant notAfter, Instant createdAt,
            Instant revokedAt) {
    }

    /** The JWT signing key: which one signs, since when, and by when to rotate it. */
    record SigningKey(String kid, String algorithm, String source, Instant firstUsedAt, Instant rotateBy,
            String maxAge) {
    }

    /**
     * A page of accounts in FQDN order: those matching {@code q} (part of an FQDN or name, an exact business or account
     * id; all when null), after the FQDN {@code after}, at most {@code limit} (1 to 1000).
     */
    @GET
    @Path("/accounts")
    List<Account> accounts(@QueryParam("q") String q, @QueryParam("limit") Integer limit,
            @QueryParam("after") String after);

    @GET
    @Path("/jwt/signing-key")
    SigningKey signingKey();

    @GET
    @Path("/accounts/{accountId}")
    Account account(@PathParam("accountId") String accountId);

    @GET
    @Path("/accounts/{accountId}/clients")
    List<Client> clients(@PathParam("accountId") String accountId);

    @GET
    @Path("/accounts/{accountId}/certificates")
    List<Certificate> certificates(@PathParam("accountId") String accountId);

    /** {@code action}: disable or enable. */
    @POST
    @Path("/accounts/{accountId}/{action}")
    Account setAccount(@PathParam("accountId") String accountId, @PathParam("action") String action);

    /** {@code action}: disable or enable. */
    @POST
    @Path("/accounts/{accountId}/clients/{clientId}/{action}")
    Client setClient(@PathParam("accountId") String accountId, @PathParam("clientId") String clientId,
            @PathParam("action") String action);

    @DELETE
    @Path("/accounts/{accountId}/certificates/{certificateUuid}")
    void revoke(@PathParam("accountId") String accountId, @PathParam("certificateUuid") String certificateUuid);

    /** The operator actions this service recorded, newest first (before_id: the last id of the page before). */
    @GET
    @Path("/audit")
    List<AuditRow> audit(@QueryParam("before_id") Long beforeId, @QueryParam("limit") Integer limit,
            @QueryParam("operator") String operator);
}
