package com.convplatform.hook.signing;

import java.time.Instant;

import jakarta.annotation.security.PermitAll;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Spec 4.3: the hook-signing certificate chain, for receivers to verify hooks with. */
@Path("/platform/hooks/certificate/")
@Tag(name = "certificate")
@PermitAll
public class CertificateResource {

    /** The document receivers download. */
    public record CertificateDocument(String certificate, @JsonProperty("not_after") Instant notAfter,
            @JsonProperty("sha256_fingerprint") String sha256Fingerprint) {
    }

    private final SigningIdentity identity;

    public CertificateResource(SigningIdentity identity) {
        this.identity = identity;
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public CertificateDocument certificate() {
        SigningIdentity.Current c = identity.current();
        return new CertificateDocument(c.chainPem(), c.chain().get(0).getNotAfter().toInstant(), c.fingerprint());
    }
}
