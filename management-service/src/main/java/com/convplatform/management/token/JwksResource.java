package com.convplatform.management.token;

import java.util.Map;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** The public keys that verify issued tokens (RFC 7517). */
@Path("/platform/management/jwks.json")
@Tag(name = "signed API")
public class JwksResource {
    private final TokenService tokens;

    public JwksResource(TokenService tokens) {
        this.tokens = tokens;
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Map<String, Object> jwks() {
        return tokens.jwks();
    }
}
