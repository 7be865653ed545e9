package com.convplatform.management.admin;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import com.convplatform.management.account.AccountService;
import com.convplatform.management.account.AccountViews.AccountView;
import com.convplatform.management.config.ManagementConfig;
import com.convplatform.support.ApiKeyGuard;

/** What the other services read: an account's FQDN, business and webhook URL. */
@Path("/internal/v1")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "internal", description = "Service-to-service API (Authorization: Bearer <management.internal.api-key>)")
public class InternalResource {
    private final AccountService accounts;
    private final ManagementConfig config;

    public InternalResource(AccountService accounts, ManagementConfig config) {
        this.accounts = accounts;
        this.config = config;
    }

    @GET
    @Path("/accounts/{accountId}")
    public AccountView account(@HeaderParam("Authorization") String authorization,
            @PathParam("accountId") String accountId) {
        ApiKeyGuard.require(config.internal().apiKey(), authorization, "internal");
        return accounts.get(accountId);
    }
}
