package com.convplatform.management.admin;

import java.util.List;
import java.util.Map;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import com.convplatform.management.account.AccountService;
import com.convplatform.management.account.AccountViews.AccountView;
import com.convplatform.management.account.AccountViews.CertificateView;
import com.convplatform.management.account.AccountViews.ClientView;
import com.convplatform.management.account.AccountViews.NewAccount;
import com.convplatform.management.account.AccountViews.NewCertificate;
import com.convplatform.management.account.AccountViews.NewClient;
import com.convplatform.management.config.ManagementConfig;
import com.convplatform.management.token.TokenService;
import com.convplatform.support.ApiException;
import com.convplatform.support.ApiKeyGuard;

/** The operator API: accounts, clients, self-signed certificates and JWT key rotation. */
@Path("/admin/v1")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@Tag(name = "operator", description = "Operator API (Authorization: Bearer <management.admin.api-key>)")
public class AdminResource {
    private final AccountService accounts;
    private final TokenService tokens;
    private final ManagementConfig config;

    public AdminResource(AccountService accounts, TokenService tokens, ManagementConfig config) {
        this.accounts = accounts;
        this.tokens = tokens;
        this.config = config;
    }

    private void auth(String authorization) {
        ApiKeyGuard.require(config.admin().apiKey(), authorization, "operator");
    }

    @POST
    @Path("/accounts")
    public Response createAccount(@HeaderParam("Authorization") String authorization, NewAccount in) {
        auth(authorization);
        return Response.status(201).entity(accounts.create(in)).build();
    }

    @GET
    @Path("/accounts")
    public List<AccountView> listAccounts(@HeaderParam("Authorization") String authorization) {
        auth(authorization);
        return accounts.list();
    }

    @GET
    @Path("/accounts/{accountId}")
    public AccountView account(@HeaderParam("Authorization") String authorization,
            @PathParam("accountId") String accountId) {
        auth(authorization);
        return accounts.get(accountId);
    }

    @POST
    @Path("/accounts/{accountId}/clients")
    public Response addClient(@HeaderParam("Authorization") String authorization,
            @PathParam("accountId") String accountId, NewClient in) {
        auth(authorization);
        return Response.status(201).entity(accounts.addClient(accountId, in == null ? null : in.name())).build();
    }

    @GET
    @Path("/accounts/{accountId}/clients")
    public List<ClientView> clients(@HeaderParam("Authorization") String authorization,
            @PathParam("accountId") String accountId) {
        auth(authorization);
        return accounts.clients(accountId);
    }

    @POST
    @Path("/accounts/{accountId}/certificates")
    public Response register(@HeaderParam("Authorization") String authorization,
            @PathParam("accountId") String accountId, NewCertificate in) {
        auth(authorization);
        return Response.status(201).entity(accounts.register(accountId, in == null ? null : in.certificate()))
                .build();
    }

    @GET
    @Path("/accounts/{accountId}/certificates")
    public List<CertificateView> certificates(@HeaderParam("Authorization") String authorization,
            @PathParam("accountId") String accountId) {
        auth(authorization);
        return accounts.certificates(accountId);
    }

    @DELETE
    @Path("/accounts/{accountId}/certificates/{certificateUuid}")
    public Response revoke(@HeaderParam("Authorization") String authorization,
            @PathParam("accountId") String accountId, @PathParam("certificateUuid") String certificateUuid) {
        auth(authorization);
        accounts.revoke(accountId, certificateUuid);
        return Response.noContent().build();
    }

    @POST
    @Path("/jwt/rotate")
    public Map<String, String> rotate(@HeaderParam("Authorization") String authorization) {
        auth(authorization);
        try {
            return Map.of("kid", tokens.rotate());
        } catch (IllegalStateException e) {
            throw new ApiException(409, "KEY_FROM_FILE", e.getMessage());
        }
    }
}
