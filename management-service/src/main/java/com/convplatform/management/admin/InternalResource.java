package com.convplatform.management.admin;

import java.util.Set;

import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.UriInfo;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import com.convplatform.api.management.ManagementInternal.Account;
import com.convplatform.api.management.ManagementInternal.RevocationList;
import com.convplatform.management.account.AccountService;
import com.convplatform.management.account.AccountViews.AccountView;
import com.convplatform.management.revocation.Revocations;
import com.convplatform.support.QueryParameters;
import com.convplatform.support.Roles;

@Path("/internal/v1")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed(Roles.INTERNAL)
@Tag(name = "internal", description = "Service-to-service API (Authorization: Bearer <management.internal.api-key>)")
public class InternalResource {
    private final AccountService accounts;
    private final Revocations revocations;

    public InternalResource(AccountService accounts, Revocations revocations) {
        this.accounts = accounts;
        this.revocations = revocations;
    }

    @GET
    @Path("/revocations")
    @Operation(summary = "The revocation list: every account, client and certificate disabled, blocked or revoked"
            + " whose tokens may still be within their lifetime; poll it every 5 s and refuse the tokens it matches"
            + " (README, Revocation)")
    @APIResponse(responseCode = "200", description = "The list, as of as_of")
    @APIResponse(responseCode = "400", description = "UNKNOWN_PARAMETER: this endpoint takes no parameters")
    public RevocationList revocations(@Context UriInfo uri) {
        QueryParameters.onlyKnown(uri.getQueryParameters(), Set.of());
        return revocations.list();
    }

    @GET
    @Path("/accounts/{accountId}")
    @Operation(summary = "An account, as hook-service looks it up for its webhook URL")
    @APIResponse(responseCode = "200", description = "The account")
    @APIResponse(responseCode = "404", description = "ACCOUNT_NOT_FOUND: no account with that id")
    public Account account(@PathParam("accountId") String accountId) {
        AccountView a = accounts.get(accountId);
        return new Account(a.accountId(), a.name(), a.fqdn(), a.businessId(), a.webhookUrl(), a.createdAt(),
                a.requireSha256(), a.disabledAt());
    }
}
