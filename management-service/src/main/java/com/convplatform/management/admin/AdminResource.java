package com.convplatform.management.admin;

import java.util.List;
import java.util.Set;

import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.UriInfo;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;
import org.jboss.resteasy.reactive.ResponseStatus;
import org.jboss.resteasy.reactive.RestResponse;

import com.convplatform.management.account.AccountService;
import com.convplatform.management.account.AccountViews.AccountSettings;
import com.convplatform.management.account.AccountViews.AccountView;
import com.convplatform.management.account.AccountViews.CertificateView;
import com.convplatform.management.account.AccountViews.ClientView;
import com.convplatform.management.account.AccountViews.NewAccount;
import com.convplatform.management.account.AccountViews.NewCertificate;
import com.convplatform.management.account.AccountViews.NewClient;
import com.convplatform.management.account.CertificateService;
import com.convplatform.management.account.ClientService;
import com.convplatform.management.token.SigningKeys;
import com.convplatform.management.token.SigningKeys.SigningKeyState;
import com.convplatform.support.QueryParameters;
import com.convplatform.support.Roles;
import com.convplatform.support.audit.AuditTarget;
import com.fasterxml.jackson.databind.JsonNode;

/** The operator API: accounts, clients, self-signed certificates, and the JWT signing key's state and rotation. */
@Path("/admin/v1")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@RolesAllowed(Roles.OPERATOR)
@Tag(name = "operator", description = "Operator API (Authorization: Bearer <management.admin.api-key>)")
public class AdminResource {
    private static final String NO_ACCOUNT = "ACCOUNT_NOT_FOUND: no account with that id";
    private static final String MISSING_BODY = "MISSING_FIELD: send a JSON object";
    private static final String SETTINGS_REFUSED = "MISSING_FIELD, INVALID_REQUIRE_SHA256, FIELD_NOT_CHANGEABLE,"
            + " MALFORMED_JSON";
    static final int ACCOUNTS_PAGE = 100;
    static final int MAX_ACCOUNTS = 1000;
    private static final Set<String> ACCOUNT_QUERY = Set.of("q", "limit", "after");

    private final AccountService accounts;
    private final ClientService clients;
    private final CertificateService certificates;
    private final SigningKeys keys;

    public AdminResource(AccountService accounts, ClientService clients, CertificateService certificates,
            SigningKeys keys) {
        this.accounts = accounts;
        this.clients = clients;
        this.certificates = certificates;
        this.keys = keys;
    }

    @POST
    @Path("/accounts")
    @ResponseStatus(201)
    @Operation(summary = "Register an account: one business, one FQDN, one webhook URL; require_sha256 optional")
    @APIResponse(responseCode = "201", description = "The account")
    @APIResponse(responseCode = "400", description = "MISSING_FIELD, INVALID_NAME, INVALID_FQDN, INVALID_BUSINESS_ID,"
            + " INVALID_WEBHOOK_URL, MALFORMED_JSON")
    @APIResponse(responseCode = "409", description = "FQDN_TAKEN, BUSINESS_TAKEN")
    public AccountView createAccount(@NotNull(message = MISSING_BODY) @Valid NewAccount in) {
        return accounts.create(in);
    }

    @GET
    @Path("/accounts")
    @Operation(summary = "Accounts in the order of their FQDNs, a page at a time; with q, those that match it", description = "q matches an FQDN or a name that contains it (case-insensitive), or the exact business_id"
            + " or account_id. The next page: the same query with after = the fqdn of the last account of"
            + " this one; a page shorter than limit is the last.")
    @APIResponse(responseCode = "200", description = "At most limit accounts")
    @APIResponse(responseCode = "400", description = "INVALID_QUERY: q is over 253 characters; INVALID_LIMIT: limit is"
            + " not 1 to 1000; INVALID_CURSOR: after is not an FQDN; UNKNOWN_PARAMETER, REPEATED_PARAMETER")
    public List<AccountView> listAccounts(@Context UriInfo uri,
            @QueryParam("q") @Parameter(description = "Part of an FQDN or name (any case), or an exact business_id or"
                    + " account_id; blank or absent: every account", example = "acme") String q,
            @QueryParam("limit") @Parameter(description = "1 to " + MAX_ACCOUNTS + "; " + ACCOUNTS_PAGE
                    + " when absent", schema = @Schema(type = SchemaType.INTEGER, minimum = "1", maximum = ""
                            + MAX_ACCOUNTS, defaultValue = "" + ACCOUNTS_PAGE), example = "50") String limit,
            @QueryParam("after") @Parameter(description = "The fqdn of the last account of the page before", example = "acme.example") String after) {
        QueryParameters.onlyKnown(uri.getQueryParameters(), ACCOUNT_QUERY);
        return accounts.search(q, after, QueryParameters.limit(limit, ACCOUNTS_PAGE, MAX_ACCOUNTS));
    }

    @GET
    @Path("/accounts/{accountId}")
    @Operation(summary = "One account")
    @APIResponse(responseCode = "200", description = "The account")
    @APIResponse(responseCode = "404", description = NO_ACCOUNT)
    public AccountView account(@PathParam("accountId") String accountId) {
        return accounts.get(accountId);
    }

    @PATCH
    @Path("/accounts/{accountId}")
    @Operation(summary = "Change an account's settings: require_sha256 (the only field that can change)")
    @RequestBody(required = true, content = @Content(schema = @Schema(implementation = AccountSettings.class)))
    @APIResponse(responseCode = "200", description = "The account as it is now")
    @APIResponse(responseCode = "400", description = SETTINGS_REFUSED)
    @APIResponse(responseCode = "404", description = NO_ACCOUNT)
    public AccountView changeAccount(@PathParam("accountId") String accountId, JsonNode in) {
        return accounts.change(accountId, AccountSettings.of(in));
    }

    @PUT
    @Path("/accounts/{accountId}")
    @Operation(summary = "Set an account's settings: the same object as PATCH (require_sha256 is its only field)")
    @RequestBody(required = true, content = @Content(schema = @Schema(implementation = AccountSettings.class)))
    @APIResponse(responseCode = "200", description = "The account as it is now")
    @APIResponse(responseCode = "400", description = SETTINGS_REFUSED)
    @APIResponse(responseCode = "404", description = NO_ACCOUNT)
    public AccountView replaceAccountSettings(@PathParam("accountId") String accountId, JsonNode in) {
        return accounts.change(accountId, AccountSettings.of(in));
    }

    @POST
    @Path("/accounts/{accountId}/disable")
    @Consumes(MediaType.WILDCARD) // no body
    @Operation(summary = "Disable an account: no token or client list for it, and its tokens are refused within"
            + " seconds through the revocation list (GET /internal/v1/revocations); disabling again keeps the date")
    @APIResponse(responseCode = "200", description = "The account, with disabled_at")
    @APIResponse(responseCode = "404", description = NO_ACCOUNT)
    public AccountView disableAccount(@PathParam("accountId") String accountId) {
        return accounts.setDisabled(accountId, true);
    }

    @POST
    @Path("/accounts/{accountId}/enable")
    @Consumes(MediaType.WILDCARD) // no body
    @Operation(summary = "Enable a disabled account: new tokens are issued again; tokens issued before it was"
            + " disabled stay refused until they expire")
    @APIResponse(responseCode = "200", description = "The account, disabled_at null")
    @APIResponse(responseCode = "404", description = NO_ACCOUNT)
    public AccountView enableAccount(@PathParam("accountId") String accountId) {
        return accounts.setDisabled(accountId, false);
    }

    @POST
    @Path("/accounts/{accountId}/clients/{clientId}/disable")
    @Consumes(MediaType.WILDCARD) // no body
    @Operation(summary = "Disable a client: no token for it, and its tokens are refused within seconds through the"
            + " revocation list; disabling again keeps the date")
    @APIResponse(responseCode = "200", description = "The client, with disabled_at")
    @APIResponse(responseCode = "404", description = NO_ACCOUNT + "; CLIENT_NOT_FOUND: the account has no such client")
    public ClientView disableClient(@PathParam("accountId") String accountId, @PathParam("clientId") String clientId) {
        return clients.setClientDisabled(accountId, clientId, true);
    }

    @POST
    @Path("/accounts/{accountId}/clients/{clientId}/enable")
    @Consumes(MediaType.WILDCARD) // no body
    @Operation(summary = "Enable a disabled client: tokens are issued again; those issued before it was disabled stay"
            + " refused until they expire")
    @APIResponse(responseCode = "200", description = "The client, without disabled_at")
    @APIResponse(responseCode = "404", description = NO_ACCOUNT + "; CLIENT_NOT_FOUND: the account has no such client")
    public ClientView enableClient(@PathParam("accountId") String accountId, @PathParam("clientId") String clientId) {
        return clients.setClientDisabled(accountId, clientId, false);
    }

    @POST
    @Path("/accounts/{accountId}/clients")
    @ResponseStatus(201)
    @Operation(summary = "Add a client to an account; its client_id is what tokens are issued for")
    @APIResponse(responseCode = "201", description = "The client")
    @APIResponse(responseCode = "400", description = "MISSING_FIELD, INVALID_NAME, MALFORMED_JSON")
    @APIResponse(responseCode = "404", description = NO_ACCOUNT)
    public ClientView addClient(@PathParam("accountId") String accountId,
            @NotNull(message = MISSING_BODY) @Valid NewClient in) {
        return clients.addClient(accountId, in.name());
    }

    @GET
    @Path("/accounts/{accountId}/clients")
    @Operation(summary = "An account's clients")
    @APIResponse(responseCode = "200", description = "The clients, disabled ones included")
    @APIResponse(responseCode = "404", description = NO_ACCOUNT)
    public List<ClientView> clients(@PathParam("accountId") String accountId) {
        return clients.clients(accountId);
    }

    @POST
    @Path("/accounts/{accountId}/certificates")
    @Operation(summary = "Register a self-signed certificate (once); its certificate_uuid goes in SignatureCertUUID")
    @APIResponse(responseCode = "201", description = "The certificate, registered now")
    @APIResponse(responseCode = "200", description = "The certificate was registered already (registering is"
            + " idempotent): its existing registration, with the same certificate_uuid")
    @APIResponse(responseCode = "400", description = "MISSING_FIELD, CERT_MALFORMED, CERT_EXPIRED,"
            + " CERT_NOT_YET_VALID, CERT_NAME_MISMATCH, CERT_CHAIN_INVALID, CERT_KEY_UNSUPPORTED, MALFORMED_JSON")
    @APIResponse(responseCode = "404", description = NO_ACCOUNT)
    @APIResponse(responseCode = "409", description = "CERTIFICATE_REVOKED: this certificate was registered and"
            + " revoked (the message names its certificate_uuid); register a new one")
    public RestResponse<CertificateView> register(@PathParam("accountId") String accountId,
            @NotNull(message = MISSING_BODY) @Valid NewCertificate in) {
        CertificateService.Registration r = certificates.register(accountId, in.certificate());
        return RestResponse.status(r.created() ? RestResponse.Status.CREATED : RestResponse.Status.OK, r.certificate());
    }

    @GET
    @Path("/accounts/{accountId}/certificates")
    @Operation(summary = "An account's registered certificates, revoked ones included")
    @APIResponse(responseCode = "200", description = "The certificates")
    @APIResponse(responseCode = "404", description = NO_ACCOUNT)
    public List<CertificateView> certificates(@PathParam("accountId") String accountId) {
        return certificates.certificates(accountId);
    }

    @DELETE
    @Path("/accounts/{accountId}/certificates/{certificateUuid}")
    @ResponseStatus(204)
    @Operation(summary = "Revoke a registered certificate: refused at once by every replica")
    @APIResponse(responseCode = "204", description = "Revoked (or already revoked)")
    @APIResponse(responseCode = "404", description = "CERTIFICATE_NOT_FOUND: the account has no such certificate")
    public void revoke(@PathParam("accountId") String accountId, @PathParam("certificateUuid") String certificateUuid) {
        certificates.revoke(accountId, certificateUuid);
    }

    @POST
    @Path("/jwt/rotate")
    @Operation(summary = "Start signing tokens with a new key; the old one stays in the JWKS until the next rotation")
    @APIResponse(responseCode = "200", description = "The new key's id")
    @APIResponse(responseCode = "409", description = "KEY_FROM_FILE: the key comes from management.jwt.key-file")
    public RotatedKey rotate() {
        return new RotatedKey(keys.rotate());
    }

    public record RotatedKey(
            @Schema(example = "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs", description = "The key's JWK thumbprint (RFC 7638)") String kid)
            implements
                AuditTarget {
        @Override
        public String auditTarget() {
            return "kid=" + kid;
        }
    }

    @GET
    @Path("/jwt/signing-key")
    @Operation(summary = "The JWT signing key: its kid, algorithm and source, when the platform first signed with it,"
            + " and the date by which to rotate it (90 days after that: the rotation policy, as the alert"
            + " ManagementJwtKeyOld)")
    @APIResponse(responseCode = "200", description = "The current signing key's state")
    @APIResponse(responseCode = "400", description = "UNKNOWN_PARAMETER: this endpoint takes no parameters")
    public SigningKeyState signingKey(@Context UriInfo uri) {
        QueryParameters.onlyKnown(uri.getQueryParameters(), Set.of());
        return keys.signingKey();
    }
}
