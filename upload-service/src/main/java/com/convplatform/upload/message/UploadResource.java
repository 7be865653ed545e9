package com.convplatform.upload.message;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;
import org.jboss.logging.Logger;

import com.convplatform.support.ApiException;
import com.convplatform.upload.auth.TokenVerifier;
import com.convplatform.upload.config.UploadConfig;
import com.convplatform.upload.http.BoundedInputStream;
import com.convplatform.upload.http.RequestSizeLimit;
import com.fasterxml.jackson.annotation.JsonProperty;

import io.vertx.ext.web.RoutingContext;

/**
 * {@code POST /v1.0/log_file_from_user/} (spec 4.5). The token is checked before the body is read; the body is then
 * read as it arrives by {@link IncomingForm} on this request's worker thread, the file part written straight to a
 * temporary file. A refused request's body is still read (and dropped) to its end, within upload.max-request-bytes, so
 * the client gets the answer on a connection that stays usable.
 */
@Path("/v1.0/log_file_from_user/")
@Tag(name = "upload")
public class UploadResource {
    private static final Logger LOG = Logger.getLogger(UploadResource.class);

    /** Spec 2.3. */
    public record UploadedFileMessage(@JsonProperty("message_id") long messageId,
            @JsonProperty("message_body") String messageBody, @JsonProperty("created_at") String createdAt,
            @JsonProperty("message_type") int messageType, @JsonProperty("file_url") String fileUrl) {
    }

    /** The form as the OpenAPI document shows it (the body is read by {@link IncomingForm}, not bound to this). */
    @Schema(name = "UploadForm", requiredProperties = {"auth_id", "business_id", "message_type", "file"})
    public static final class FormSchema {
        @Schema(description = "The user's id: 1 to 64 letters and digits, registered for business_id", example = "user42")
        public String auth_id;
        @Schema(description = "The business the user belongs to: digits, the token's account's business", example = "1001")
        public String business_id;
        @Schema(description = "1 (image: jpg, jpeg, png, gif) or 52 (document: docx, doc, xls, xlsx, csv)", enumeration = {
                "1", "52"})
        public String message_type;
        @Schema(type = SchemaType.STRING, format = "binary", description = "The file, at most 10 MB; its content must match its extension")
        public String file;
        @Schema(description = "Text logged with the file, at most 4096 characters")
        public String message_body;
    }

    private final TokenVerifier tokens;
    private final UploadService uploads;
    private final IncomingDirectory incoming;
    private final UploadConfig config;

    public UploadResource(TokenVerifier tokens, UploadService uploads, IncomingDirectory incoming,
            UploadConfig config) {
        this.tokens = tokens;
        this.uploads = uploads;
        this.incoming = incoming;
        this.config = config;
    }

    @POST
    @Consumes(MediaType.MULTIPART_FORM_DATA)
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Log a file from a user as a message", description = "Bearer token from management-service and client-id header; form fields auth_id,"
            + " business_id, message_type (1 image, 52 document), file (max 10 MB), message_body.")
    @RequestBody(required = true, content = @Content(mediaType = MediaType.MULTIPART_FORM_DATA, schema = @Schema(implementation = FormSchema.class)))
    public UploadedFileMessage upload(@HeaderParam("Authorization") String authorization,
            @HeaderParam("client-id") String clientId, @HeaderParam("Content-Type") String contentType,
            InputStream body, @Context RoutingContext request) {
        BoundedInputStream in = new BoundedInputStream(body, config.maxRequestBytes());
        try {
            return accept(authorization, clientId, contentType, in);
        } catch (ApiException e) {
            if (in.exceeded()) {
                closeAfterAnswer(request);
            }
            throw e;
        } catch (BoundedInputStream.TooLarge e) {
            closeAfterAnswer(request);
            throw uploads.refused(new ApiException(413, "FILE_TOO_LARGE", RequestSizeLimit.MESSAGE));
        } catch (IOException e) {
            LOG.debugf("An upload's body could not be read: %s", e.getMessage());
            throw uploads.refused(
                    new ApiException(400, "INCOMPLETE_BODY", "The request body could not be read to its end"));
        }
    }

    private UploadedFileMessage accept(String authorization, String clientId, String contentType,
            BoundedInputStream in) throws IOException {
        TokenVerifier.Caller caller;
        try {
            caller = tokens.verify(authorization, clientId);
        } catch (ApiException e) {
            drain(in);
            throw e;
        }
        IncomingForm form;
        try {
            form = IncomingForm.read(in, contentType, incoming.path(), config.maxFileBytes());
        } catch (ApiException e) {
            drain(in);
            throw uploads.refused(e);
        }
        try (form) {
            UploadService.Logged l = uploads.upload(caller, form.toForm());
            return new UploadedFileMessage(l.messageId(), l.messageBody(), l.createdAt(), l.messageType(),
                    l.fileUrl());
        }
    }

    /** Reads a refused request's body to its end (or to the bound), so the client can read the answer. */
    private static void drain(BoundedInputStream in) throws IOException {
        try {
            in.transferTo(OutputStream.nullOutputStream());
        } catch (BoundedInputStream.TooLarge e) {
            // the answer closes the connection instead
        }
    }

    /** The rest of the body was not read: the connection cannot carry another request. */
    private static void closeAfterAnswer(RoutingContext request) {
        request.response().putHeader("Connection", "close");
        request.addEndHandler(done -> request.request().connection().close());
    }
}
