package com.convplatform.hook.signing;

import jakarta.annotation.security.PermitAll;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** Serves the document receivers verify hooks with (4.3). */
@Path(CertificateResource.PATH)
@PermitAll
@Tag(name = "certificate", description = "Public: what receivers download to verify hooks (spec 4.3, 5.2)")
public class CertificateResource {
    static final String PATH = "/platform/hooks/certificate/";

    private final SigningIdentity identity;

    public CertificateResource(SigningIdentity identity) {
        this.identity = identity;
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "The hook-signing certificate chain named in each hook's signature-certificate-url")
    @APIResponse(responseCode = "200", description = "The chain, its end of validity and fingerprint")
    public CertificateDocument certificate() {
        return identity.document();
    }
}
