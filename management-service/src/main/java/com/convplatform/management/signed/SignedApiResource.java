package com.convplatform.management.signed;

import java.util.concurrent.CompletionStage;

import jakarta.annotation.security.PermitAll;
import jakarta.ws.rs.BeanParam;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import com.convplatform.crypto.management.ManagementHeaders;
import com.convplatform.management.account.AccountViews.ClientList;
import com.convplatform.management.token.TokenService.TokenResponse;
import com.convplatform.support.Workers;

import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.SocketAddress;

/** The signed management API of spec 4.1 and 4.2. The body is taken as the exact bytes the signature is over. */
@Path("/")
@Produces(MediaType.APPLICATION_JSON)
@PermitAll
@Tag(name = "signed API", description = "Requests signed by the external client (spec 5.1): SHA1withRSA or"
        + " SHA1withECDSA over the exact body bytes, Base64 in Signature, and/or (this platform's extension)"
        + " SHA256withRSA or SHA256withECDSA over the same bytes in Signature-256; every signature header sent must"
        + " verify, and an account whose require_sha256 is set needs Signature-256. Plus exactly one of"
        + " SignatureCertChainUrl (CA-signed) or SignatureCertUUID (registered self-signed)")
@APIResponse(responseCode = "400", description = SignedApiResource.REFUSALS)
@APIResponse(responseCode = "413", description = "BODY_TOO_LARGE: management requests are small JSON objects (64 KiB)")
@APIResponse(responseCode = "415", description = "UNSUPPORTED_MEDIA_TYPE: send Content-Type: application/json")
@APIResponse(responseCode = "429", description = "RATE_LIMITED: too many signed requests, or refused ones, from this"
        + " source, or too many verified ones for this account, in the last minute; send the request again after"
        + " Retry-After seconds")
@APIResponse(responseCode = "503", description = "CERT_FETCH_BUSY: downloads from the chain URL's host are already running"
        + " at the most allowed at once, or the account's chain-download budget is used up; send the request again"
        + " after Retry-After seconds")
public class SignedApiResource {
    static final String REFUSALS = "In the order of the checks: the body (MALFORMED_JSON, MISSING_FIELD), the certificate"
            + " headers (CERT_HEADERS, CERT_URL_MALFORMED, CERT_URL_SCHEME, CERT_URL_HOST, CERT_URL_PATH,"
            + " CERT_URL_PORT); then NOT_AUTHENTICATED: no account has the fqdn, or no valid signature by a certificate"
            + " of the account (the reason is not told, so that nobody learns which FQDNs are customers'; the"
            + " operator finds it by X-Request-Id); once the signature verified: TIMESTAMP_MALFORMED,"
            + " TIMESTAMP_OUT_OF_WINDOW, CERT_BLOCKED (a certificate of the chain is blocked by the operator),"
            + " SIGNATURE_256_REQUIRED (the account requires Signature-256 and the request has none)";
    private static final String SIGNATURE = "Base64 of the SHA1withRSA or SHA1withECDSA signature over the exact"
            + " body bytes (spec 5.1). Send it, Signature-256, or both; an account that requires SHA-256 may leave it"
            + " out";
    private static final String SIGNATURE_256 = "Base64 of the SHA256withRSA or SHA256withECDSA signature over the"
            + " same exact body bytes, with the same key (this platform's extension of spec 5.1). When both headers"
            + " are sent, both must verify; required for accounts whose require_sha256 is set";
    private static final String CHAIN_URL = "CA-signed certificates: https URL of the PEM chain (signing certificate"
            + " first), host equal to the account's FQDN, path under /client.api/, port 443 if any, such as"
            + " https://client.example.com/client.api/chain.pem. Send this or SignatureCertUUID, never both: leave"
            + " it empty when you send SignatureCertUUID";
    private static final String CERT_UUID = "Self-signed certificates: the certificate_uuid the operator API gave"
            + " when the certificate was registered (a local run's demo: CERT_UUID in data/local/demo/demo.env)."
            + " Send this or SignatureCertChainUrl, never both: leave it empty when you send SignatureCertChainUrl";
    /**
     * What Swagger UI cannot do for a person: sign. Shown above each signed operation, with the commands that do
     * (platform-cli's sign, the kits) and a timestamp made at the time of signing.
     */
    static final String SIGN_OUTSIDE = "**The signature is computed outside the browser**: Swagger UI cannot sign."
            + " Sign the exact bytes of the body with the certificate's private key, then paste here that body,"
            + " unchanged (not re-indented), and the signature headers, within 150 s of the body's timestamp:\n\n"
            + "1. Write the body with the current UTC time as its timestamp (the example's timestamp is a"
            + " placeholder), for a token:\n"
            + "   `printf '{\"client_id\":\"<client_id>\",\"fqdn\":\"<fqdn>\",\"timestamp\":\"%s\"}'"
            + " \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\" > body.json` (the client list's body has no client_id)\n"
            + "2. Sign it: `platform-cli sign --key <key.pem> --body body.json` prints the `Signature` and"
            + " `Signature-256` headers (platform-cli's README; a local run's `data/local/demo/demo.env` defines"
            + " `platform-cli` and names the demo's key as `$KEY`, its certificate as `$CERT_UUID`). The kits in"
            + " `clients/` (java, python, node) sign the same way in code.\n"
            + "3. Here: the body, `Signature` and/or `Signature-256`, and exactly one of `SignatureCertUUID`"
            + " (registered self-signed certificate) or `SignatureCertChainUrl` (CA-signed); leave the other"
            + " empty.\n\n"
            + "`platform-cli request token` and `platform-cli request clients` do all three and send the request.";
    private static final String TIMESTAMP = "UTC, within 150 s of the server clock: the time you sign at, made with"
            + " date -u +%Y-%m-%dT%H:%M:%SZ (the example is a placeholder, refused as it is)";
    private static final String TIMESTAMP_EXAMPLE = "<now, from: date -u +%Y-%m-%dT%H:%M:%SZ>";

    /** The signed bodies, for the documentation only (the bytes are read as sent). */
    record TokenRequest(@Schema(example = "6f1c8a52-3b0e-4d7a-9a57-1f0e2b7c9d10") String clientId,
            @Schema(example = "client.example.com") String fqdn,
            @Schema(example = TIMESTAMP_EXAMPLE, description = TIMESTAMP) String timestamp) {
    }

    record ClientListRequest(@Schema(example = "client.example.com") String fqdn,
            @Schema(example = TIMESTAMP_EXAMPLE, description = TIMESTAMP) String timestamp) {
    }

    public record Headers(@HeaderParam("Content-Type") String contentType,
            @Parameter(description = SIGNATURE) @HeaderParam(ManagementHeaders.SIGNATURE) String signature,
            @Parameter(description = CHAIN_URL) @HeaderParam(ManagementHeaders.CERT_CHAIN_URL) String certChainUrl,
            @Parameter(description = CERT_UUID) @HeaderParam(ManagementHeaders.CERT_UUID) String certUuid,
            @Parameter(description = SIGNATURE_256) @HeaderParam(ManagementHeaders.SIGNATURE_256) String signature256) {
    }

    private final SignedRequestService service;

    public SignedApiResource(SignedRequestService service) {
        this.service = service;
    }

    @POST
    @Path("platform/management/token/issue/")
    @Operation(summary = "Issue a JWT for a client (spec 4.1)", description = SIGN_OUTSIDE)
    @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = TokenRequest.class)))
    @APIResponse(responseCode = "200", description = "The token", content = @Content(schema = @Schema(implementation = TokenResponse.class)))
    @APIResponse(responseCode = "403", description = "CLIENT_NOT_IN_ACCOUNT: the client_id is not one of the account's;"
            + " ACCOUNT_DISABLED, CLIENT_DISABLED: disabled by the platform operator")
    public CompletionStage<TokenResponse> issue(byte[] body, @BeanParam Headers headers,
            @Context HttpServerRequest request) {
        String source = source(request);
        // On the event loop while the account, certificate and client are in memory, else on a worker
        // (Workers.inMemoryOrOnWorker; docs/capacity.md): a CompletionStage, no Mutiny context capture per request.
        return Workers.inMemoryOrOnWorker(() -> service.issueToken(body, headers, source));
    }

    @POST
    @Path("jwt/issue")
    @Operation(summary = "Issue a JWT for a client (the same operation under the spec's other path)", description = SIGN_OUTSIDE)
    @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = TokenRequest.class)))
    @APIResponse(responseCode = "200", description = "The token", content = @Content(schema = @Schema(implementation = TokenResponse.class)))
    @APIResponse(responseCode = "403", description = "CLIENT_NOT_IN_ACCOUNT: the client_id is not one of the account's;"
            + " ACCOUNT_DISABLED, CLIENT_DISABLED: disabled by the platform operator")
    public CompletionStage<TokenResponse> issueAlias(byte[] body, @BeanParam Headers headers,
            @Context HttpServerRequest request) {
        return issue(body, headers, request);
    }

    @POST
    @Path("platform/management/clients/")
    @Operation(summary = "List the account's clients (spec 4.2)", description = SIGN_OUTSIDE)
    @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = ClientListRequest.class)))
    @APIResponse(responseCode = "200", description = "The account's clients", content = @Content(schema = @Schema(implementation = ClientList.class)))
    @APIResponse(responseCode = "403", description = "ACCOUNT_DISABLED: the account is disabled by the platform operator")
    public CompletionStage<ClientList> clients(byte[] body, @BeanParam Headers headers,
            @Context HttpServerRequest request) {
        String source = source(request);
        // as a token: on the event loop while the account's clients are in memory (DirectReads), else on a worker
        return Workers.inMemoryOrOnWorker(() -> service.listClients(body, headers, source));
    }

    /** The peer, or the client named by X-Forwarded-For when {@code quarkus.http.proxy.*} trusts the proxy. */
    private static String source(HttpServerRequest request) {
        SocketAddress peer = request.remoteAddress();
        return peer == null ? "unknown" : peer.hostAddress();
    }
}
