package com.convplatform.management.admin;

import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import com.convplatform.management.account.AccountService;
import com.convplatform.management.account.AccountViews.AccountView;
import com.convplatform.support.Roles;

@Path("/internal/v1")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed(Roles.INTERNAL)
@Tag(name = "internal", description = "Service-to-service API (Authorization: Bearer <management.internal.api-key>)")
public class InternalResource {
    private final AccountService accounts;

    public InternalResource(AccountService accounts) {
        this.accounts = accounts;
    }

    @GET
    @Path("/accounts/{accountId}")
    @Operation(summary = "An account, as hook-service looks it up for its webhook URL")
    @APIResponse(responseCode = "404", description = "ACCOUNT_NOT_FOUND: no account with that id")
    public AccountView account(@PathParam("accountId") String accountId) {
        return accounts.get(accountId);
    }
}
