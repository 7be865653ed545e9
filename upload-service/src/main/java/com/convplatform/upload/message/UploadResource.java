package com.convplatform.upload.message;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;
import org.jboss.resteasy.reactive.RestForm;
import org.jboss.resteasy.reactive.multipart.FileUpload;

import com.convplatform.upload.auth.TokenVerifier;
import com.fasterxml.jackson.annotation.JsonProperty;

/** {@code POST /v1.0/log_file_from_user/} (spec 4.5). */
@Path("/v1.0/log_file_from_user/")
@Tag(name = "upload")
public class UploadResource {

    /** Spec 2.3. */
    public record UploadedFileMessage(@JsonProperty("message_id") long messageId,
            @JsonProperty("message_body") String messageBody, @JsonProperty("created_at") String createdAt,
            @JsonProperty("message_type") int messageType, @JsonProperty("file_url") String fileUrl) {
    }

    private final TokenVerifier tokens;
    private final UploadService uploads;

    public UploadResource(TokenVerifier tokens, UploadService uploads) {
        this.tokens = tokens;
        this.uploads = uploads;
    }

    @POST
    @Consumes(MediaType.MULTIPART_FORM_DATA)
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Log a file from a user as a message", description = "Bearer token from management-service and client-id header; form fields auth_id,"
            + " business_id, message_type (1 image, 52 document), file (max 10 MB), message_body.")
    public UploadedFileMessage upload(@HeaderParam("Authorization") String authorization,
            @HeaderParam("client-id") String clientId, @RestForm("auth_id") String authId,
            @RestForm("business_id") String businessId, @RestForm("message_type") String messageType,
            @RestForm("file") FileUpload file, @RestForm("message_body") String messageBody) {
        TokenVerifier.Caller caller = tokens.verify(authorization, clientId);
        UploadService.Logged l = uploads.upload(caller,
                new UploadService.Form(authId, businessId, messageType, file == null ? null : file.uploadedFile(),
                        file == null ? null : file.fileName(), file == null ? 0 : file.size(), messageBody));
        return new UploadedFileMessage(l.messageId(), l.messageBody(), l.createdAt(), l.messageType(), l.fileUrl());
    }
}
