package com.convplatform.management.signed;

import java.util.concurrent.Callable;

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

import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;

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
    public Uni<TokenResponse> issue(byte[] body, @HeaderParam("Content-Type") String contentType,
            @HeaderParam(ManagementHeaders.SIGNATURE) String signature,
            @HeaderParam(ManagementHeaders.CERT_CHAIN_URL) String chainUrl,
            @HeaderParam(ManagementHeaders.CERT_UUID) String certUuid) {
        return onWorker(() -> service.issueToken(body, contentType, new Headers(signature, chainUrl, certUuid)));
    }

    @POST
    @Path("jwt/issue")
    @Operation(summary = "Issue a JWT for a client (the same operation under the spec's other path)")
    public Uni<TokenResponse> issueAlias(byte[] body, @HeaderParam("Content-Type") String contentType,
            @HeaderParam(ManagementHeaders.SIGNATURE) String signature,
            @HeaderParam(ManagementHeaders.CERT_CHAIN_URL) String chainUrl,
            @HeaderParam(ManagementHeaders.CERT_UUID) String certUuid) {
        return issue(body, contentType, signature, chainUrl, certUuid);
    }

    @POST
    @Path("platform/management/clients/")
    @Operation(summary = "List the account's clients", description = "Body {fqdn, timestamp}, signed.")
    public Uni<ClientList> clients(byte[] body, @HeaderParam("Content-Type") String contentType,
            @HeaderParam(ManagementHeaders.SIGNATURE) String signature,
            @HeaderParam(ManagementHeaders.CERT_CHAIN_URL) String chainUrl,
            @HeaderParam(ManagementHeaders.CERT_UUID) String certUuid) {
        return onWorker(() -> service.listClients(body, contentType, new Headers(signature, chainUrl, certUuid)));
    }

    /**
     * Runs the verification and the operation on a worker thread, in this request's context (its request id), once
     * the whole body has been read on the event loop; the answer is written from the event loop. As a plain blocking
     * method, the worker was taken when the request's head arrived and then waited for the body to be handed over: a
     * thread switch more per request, about a twentieth of the service's CPU in the load test. The work may block
     * (the certificate's revocation is read from the database, a chain may be downloaded), so it never runs on the
     * event loop itself.
     */
    private static <T> Uni<T> onWorker(Callable<T> work) {
        return Uni.createFrom()
                .completionStage(Vertx.currentContext().executeBlocking(work, false).toCompletionStage());
    }
}
