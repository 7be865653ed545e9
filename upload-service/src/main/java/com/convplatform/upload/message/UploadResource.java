package com.convplatform.upload.message;

import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.ParameterIn;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import com.convplatform.support.BodyLimit;
import com.convplatform.support.RequestIds;
import com.convplatform.upload.auth.TokenIdentityProvider;

import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.mutiny.Uni;

/** {@code POST /v1.0/log_file_from_user/} (spec 4.5), with or without its trailing slash. */
@Path("/v1.0/log_file_from_user/")
@RolesAllowed(TokenIdentityProvider.CLIENT)
@Tag(name = "upload", description = "A user's file, checked, stored, logged and handed on (spec 4.5)")
public class UploadResource {
    static final String PATH = "/v1.0/log_file_from_user";

    /**
     * "The file is larger than the limit of 10 MiB (10,485,760 bytes)": the words of service-support's BodyLimit for a
     * body over upload.max-request-bytes too (application.properties states this limit there).
     */
    static String tooLarge(long maxFileBytes) {
        return BodyLimit.tooLarge("file", maxFileBytes);
    }

    private final UploadService uploads;
    private final SecurityIdentity identity;

    public UploadResource(UploadService uploads, SecurityIdentity identity) {
        this.uploads = uploads;
        this.identity = identity;
    }

    @POST
    @Consumes(MediaType.MULTIPART_FORM_DATA)
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Upload a user's image or document", description = "Checked in this order: token and client-id,"
            + " the form, the business and user, the size, the type and content. Any refusal leaves nothing behind.")
    @SecurityRequirement(name = "bearer")
    @Parameter(name = "client-id", in = ParameterIn.HEADER, required = true, description = "The client id the token was"
            + " issued for: the client_id of management-service's token answer (a UUID such as"
            + " 6f1c8a52-3b0e-4d7a-9a57-1f0e2b7c9d10; a local run's demo: CLIENT_ID in data/local/demo/demo.env)", schema = @Schema(type = SchemaType.STRING, format = "uuid"))
    @APIResponse(responseCode = "200", description = "The logged message (spec 2.3)")
    @APIResponse(responseCode = "400", description = "INVALID_AUTH_ID, INVALID_BUSINESS_ID, INVALID_MESSAGE_TYPE,"
            + " MISSING_FILE, MESSAGE_BODY_TOO_LONG, FIELD_TOO_LONG (a text field over 16 KiB), INVALID_MULTIPART,"
            + " INCOMPLETE_BODY")
    @APIResponse(responseCode = "401", description = "INVALID_AUTHORIZATION: Invalid authorization details: a missing,"
            + " malformed, expired or foreign token, or a client-id that is missing or not the token's")
    @APIResponse(responseCode = "403", description = "BUSINESS_NOT_ALLOWED: not the token's account's business;"
            + " USER_NOT_REGISTERED: the user is not registered for that business")
    @APIResponse(responseCode = "405", description = "METHOD_NOT_ALLOWED: not a POST")
    @APIResponse(responseCode = "408", description = "BODY_TIMEOUT: the body did not arrive in full within"
            + " upload.body-deadline (2 min)")
    @APIResponse(responseCode = "429", description = "TOO_MANY_UPLOADS: as many bodies as the caller's account may send"
            + " at once (upload.max-concurrent-bodies-per-account, 32) are arriving; TOO_MANY_BODIES: as many bodies"
            + " as one address may send at once (platform.http.max-bodies-per-source, 32); QUOTA_EXCEEDED: the"
            + " account's uploads of the minute (upload.quota.uploads-per-minute) or bytes of the day"
            + " (upload.quota.bytes-per-day) are spent; send it again after Retry-After seconds")
    @APIResponse(responseCode = "503", description = "TOO_MANY_UPLOADS: as many bodies as the service reads at once"
            + " (upload.max-concurrent-bodies, 256) are arriving; DATABASE_UNAVAILABLE: the database is out of reach,"
            + " nothing changed; SERVICE_STOPPING: this replica is stopping, nothing changed; QUOTA_UNAVAILABLE: the"
            + " account's quota could not be checked; send it again after Retry-After seconds; OUTCOME_UNKNOWN: the database did not confirm the upload's"
            + " record (the connection was lost, or no answer within platform.database.commit-deadline), it may"
            + " have been logged")
    @APIResponse(responseCode = "413", description = "FILE_TOO_LARGE: The file is larger than the limit of 10 MiB"
            + " (10,485,760 bytes, upload.max-file-bytes); a body over 11 MiB (upload.max-request-bytes: that limit"
            + " with room for the form's other fields) gets the same answer, before its file is read")
    @APIResponse(responseCode = "415", description = "UNSUPPORTED_MEDIA_TYPE: not multipart/form-data;"
            + " UNSUPPORTED_FILE_TYPE: an extension the type does not allow; CONTENT_MISMATCH: the content is not of"
            + " the extension's kind")
    public Uni<UploadService.Logged> upload(UploadForm form) {
        TokenIdentityProvider.Caller caller = identity.getAttribute(TokenIdentityProvider.CALLER);
        return Uni.createFrom().completionStage(uploads.upload(caller, form, RequestIds.current()));
    }
}
