package com.convplatform.management.token;

import java.util.Map;

import jakarta.annotation.security.PermitAll;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

@Path("/platform/management/jwks.json")
@Tag(name = "signed API")
@PermitAll
public class JwksResource {
    private final SigningKeys keys;

    public JwksResource(SigningKeys keys) {
        this.keys = keys;
    }

    @GET
    @Operation(summary = "The public keys that verify issued tokens (ES256, RFC 7517); keys are named by their RFC 7638 thumbprint")
    @Produces(MediaType.APPLICATION_JSON)
    public Map<String, Object> jwks() {
        return keys.jwks();
    }
}
