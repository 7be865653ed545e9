package com.convplatform.management.signed;

import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import com.convplatform.crypto.management.ManagementHeaders;
import com.convplatform.management.account.AccountViews.ClientList;
import com.convplatform.management.signed.SignedRequestService.Headers;
import com.convplatform.management.signed.SignedRequestService.TokenResponse;

/** The signed management API of spec 4.1 and 4.2; every request is verified as spec 5.1 says. */
@Path("/")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "signed API", description = "Requests signed by the external client (spec 5.1)")
public class SignedApiResource {
    private final SignedRequestService service;

    public SignedApiResource(SignedRequestService service) {
        this.service = service;
    }

    @POST
    @Path("platform/management/token/issue/")
    @Operation(summary = "Issue a JWT for a client", description = "Body {client_id, fqdn, timestamp}, signed.")
    public TokenResponse issue(byte[] body, @HeaderParam("Content-Type") String contentType,
            @HeaderParam(ManagementHeaders.SIGNATURE) String signature,
            @HeaderParam(ManagementHeaders.CERT_CHAIN_URL) String chainUrl,
            @HeaderParam(ManagementHeaders.CERT_UUID) String certUuid) {
        return service.issueToken(body, contentType, new Headers(signature, chainUrl, certUuid));
    }

    @POST
    @Path("jwt/issue")
    @Operation(summary = "Issue a JWT for a client (the same operation under the spec's other path)")
    public TokenResponse issueAlias(byte[] body, @HeaderParam("Content-Type") String contentType,
            @HeaderParam(ManagementHeaders.SIGNATURE) String signature,
            @HeaderParam(ManagementHeaders.CERT_CHAIN_URL) String chainUrl,
            @HeaderParam(ManagementHeaders.CERT_UUID) String certUuid) {
        return issue(body, contentType, signature, chainUrl, certUuid);
    }

    @POST
    @Path("platform/management/clients/")
    @Operation(summary = "List the account's clients", description = "Body {fqdn, timestamp}, signed.")
    public ClientList clients(byte[] body, @HeaderParam("Content-Type") String contentType,
            @HeaderParam(ManagementHeaders.SIGNATURE) String signature,
            @HeaderParam(ManagementHeaders.CERT_CHAIN_URL) String chainUrl,
            @HeaderParam(ManagementHeaders.CERT_UUID) String certUuid) {
        return service.listClients(body, contentType, new Headers(signature, chainUrl, certUuid));
    }
}
