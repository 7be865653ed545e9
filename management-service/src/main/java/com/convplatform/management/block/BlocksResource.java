package com.convplatform.management.block;

import java.util.List;

import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;
import org.jboss.resteasy.reactive.ResponseStatus;

import com.convplatform.management.block.CertificateBlocks.Block;
import com.convplatform.support.ApiException;
import com.convplatform.support.Roles;
import com.convplatform.support.audit.AuditTarget;
import com.fasterxml.jackson.annotation.JsonProperty;

/** The operator API for withdrawing trust: certificate blocks and chain-cache purges. */
@Path("/admin/v1")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@RolesAllowed(Roles.OPERATOR)
@Tag(name = "operator")
public class BlocksResource {
    private static final String REASON = "MISSING_FIELD: send {\"reason\": \"<why, 1 to 500 characters>\"}";
    private static final String FINGERPRINT = "INVALID_FINGERPRINT: 64 hexadecimal digits (colons allowed)";

    public record BlockRequest(
            @NotBlank(message = REASON) @Size(max = 500, message = REASON) @Schema(example = "private key reported stolen") String reason) {
    }

    private final CertificateBlocks blocks;

    public BlocksResource(CertificateBlocks blocks) {
        this.blocks = blocks;
    }

    @PUT
    @Path("/certificate-blocks/{sha256}")
    @Operation(summary = "Block a certificate by the SHA-256 of its DER encoding: every signed request whose chain"
            + " holds it is refused (CERT_BLOCKED), by every replica within management.blocks.refresh")
    @APIResponse(responseCode = "200", description = "The block (blocking twice keeps the first reason)")
    @APIResponse(responseCode = "400", description = FINGERPRINT + "; MISSING_FIELD; MALFORMED_JSON")
    public Block block(@PathParam("sha256") String sha256, @NotNull(message = REASON) @Valid BlockRequest in) {
        return blocks.block(sha256, in.reason());
    }

    @GET
    @Path("/certificate-blocks")
    @Operation(summary = "Every blocked certificate")
    public List<Block> blocks() {
        return blocks.list();
    }

    @DELETE
    @Path("/certificate-blocks/{sha256}")
    @ResponseStatus(204)
    @Operation(summary = "Lift a block")
    @APIResponse(responseCode = "204", description = "Lifted")
    @APIResponse(responseCode = "400", description = FINGERPRINT)
    @APIResponse(responseCode = "404", description = "BLOCK_NOT_FOUND: the certificate is not blocked")
    public void unblock(@PathParam("sha256") String sha256) {
        if (!blocks.unblock(sha256)) {
            throw new ApiException(404, "BLOCK_NOT_FOUND", "No certificate with the fingerprint " + sha256
                    + " is blocked");
        }
    }

    @POST
    @Path("/chain-cache/purge")
    @Consumes(MediaType.WILDCARD)
    @ResponseStatus(202)
    @Operation(summary = "Drop the downloaded certificate chains of one account (fqdn) or of all, on every replica"
            + " within management.blocks.refresh: each is downloaded again on its next use")
    @APIResponse(responseCode = "202", description = "{\"purged\": \"<fqdn>\"} or {\"purged\": \"*\"}")
    public Purged purge(@QueryParam("fqdn") String fqdn) {
        String which = fqdn == null || fqdn.isBlank() ? null : fqdn.trim();
        blocks.purge(which);
        return new Purged(which == null ? "*" : which);
    }

    /** Whose chains were dropped: one FQDN, or {@code *} for all (the audit record names which). */
    public record Purged(@JsonProperty("purged") @Schema(example = "client.example.com") String purged)
            implements
                AuditTarget {
        @Override
        public String auditTarget() {
            return "fqdn=" + purged;
        }
    }
}
