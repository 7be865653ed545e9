package com.convplatform.upload.message;

import java.util.List;
import java.util.Set;

import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.UriInfo;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import com.convplatform.support.ApiException;
import com.convplatform.support.QueryParameters;
import com.convplatform.support.Roles;
import com.convplatform.upload.message.MessageHistory.MessageView;

/** The operator API: an account's uploaded messages and whether each was handed to hook-service. */
@Path("/admin/v1/messages")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed(Roles.OPERATOR)
@Tag(name = "operator", description = "Operator API (Authorization: Bearer <upload.admin.api-key>)")
public class MessageAdminResource {
    static final int PAGE = 100;
    static final int MAX_PAGE = 1000;
    private static final Set<String> PARAMETERS = Set.of("account_id", "limit", "before_id");

    private final MessageHistory history;

    public MessageAdminResource(MessageHistory history) {
        this.history = history;
    }

    @GET
    @Operation(summary = "An account's uploaded messages, newest first, each handed off to hook-service or pending", description = "The next page: the same query with before_id = the message_id of the last message of this"
            + " one; a page shorter than limit is the last.")
    @APIResponse(responseCode = "200", description = "At most limit messages (none: the account uploaded nothing)")
    @APIResponse(responseCode = "400", description = "ACCOUNT_ID_REQUIRED; INVALID_ACCOUNT_ID: over 64 characters;"
            + " INVALID_LIMIT: limit is not 1 to 1000; INVALID_CURSOR: before_id is not a message id;"
            + " UNKNOWN_PARAMETER, REPEATED_PARAMETER")
    public List<MessageView> messages(@Context UriInfo uri,
            @QueryParam("account_id") @Parameter(description = "The account (management-service's account_id, the"
                    + " token's account_id claim); required", required = true, example = "0b7c6f1e-3a52-4d0e-9a7e-2f1c9d4e8a10") String accountId,
            @QueryParam("limit") @Parameter(description = "1 to " + MAX_PAGE + "; " + PAGE
                    + " when absent", schema = @Schema(type = SchemaType.INTEGER, minimum = "1", maximum = ""
                            + MAX_PAGE, defaultValue = "" + PAGE), example = "10") String limit,
            @QueryParam("before_id") @Parameter(description = "The message_id of the last message of the page before", schema = @Schema(type = SchemaType.INTEGER, minimum = "1"), example = "4711") String beforeId) {
        QueryParameters.onlyKnown(uri.getQueryParameters(), PARAMETERS);
        if (accountId == null || accountId.isBlank()) {
            throw new ApiException(400, "ACCOUNT_ID_REQUIRED", "Give account_id: the messages are listed per account");
        }
        if (accountId.length() > 64) {
            throw new ApiException(400, "INVALID_ACCOUNT_ID", "account_id is at most 64 characters");
        }
        int n = QueryParameters.limit(limit, PAGE, MAX_PAGE);
        return history.recent(accountId, cursor(beforeId), n);
    }

    private static Long cursor(String beforeId) {
        if (beforeId == null || beforeId.isBlank()) {
            return null;
        }
        try {
            long id = Long.parseLong(beforeId.strip());
            if (id > 0) {
                return id;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new ApiException(400, "INVALID_CURSOR", "before_id is the message_id of the last message of the page"
                + " before: a whole number from 1");
    }
}
