package com.convplatform.upload.message;

import java.io.InputStream;
import java.util.Optional;

import jakarta.annotation.security.PermitAll;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import com.convplatform.support.ApiException;
import com.convplatform.upload.storage.FileIds;
import com.convplatform.upload.storage.FileStore;

/** Stored files as downloads browsers will not sniff or render; no credentials: the id holds 128 random bits. */
@Path("/files/{id}/{name}")
@PermitAll
@Tag(name = "files")
public class FilesResource {
    private final FileStore store;

    public FilesResource(FileStore store) {
        this.store = store;
    }

    @GET
    @Operation(summary = "A stored file, as an attachment")
    @APIResponse(responseCode = "200", description = "The file, with its content type")
    @APIResponse(responseCode = "404", description = "FILE_NOT_FOUND")
    public Response file(@PathParam("id") String id, @PathParam("name") String name) throws Exception {
        Message m = FileIds.isValid(id)
                ? Message.find("fileId = ?1 and createdAt >= ?2", id, FileIds.notBefore(id)).firstResult()
                : null;
        Optional<InputStream> file = m != null && m.fileName.equals(name) ? store.open(id) : Optional.empty();
        InputStream in = file.orElseThrow(() -> new ApiException(404, "FILE_NOT_FOUND", "No such file"));
        StreamingOutput body = out -> {
            try (in) {
                in.transferTo(out);
            }
        };
        return Response.ok(body).type(m.contentType).header("Content-Length", m.sizeBytes)
                .header("Content-Disposition", "attachment; filename=\"" + m.fileName + "\"")
                .header("X-Content-Type-Options", "nosniff").header("Cache-Control", "private, max-age=3600")
                .header("Content-Security-Policy", "default-src 'none'; sandbox").build();
    }
}
