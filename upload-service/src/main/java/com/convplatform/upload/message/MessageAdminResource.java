package com.convplatform.upload.message;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import javax.sql.DataSource;

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
import com.convplatform.support.LocalTransaction;
import com.convplatform.support.QueryParameters;
import com.convplatform.support.Roles;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The operator API: an account's uploads. Not the body (the customer's text) nor the file's URL (it alone downloads
 * the file).
 */
@Path("/admin/v1/messages")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed(Roles.OPERATOR)
@Tag(name = "operator", description = "Operator API (Authorization: Bearer <upload.admin.api-key>)")
public class MessageAdminResource {
    static final int PAGE = 100;
    static final int MAX_PAGE = 1000;
    private static final Set<String> PARAMETERS = Set.of("account_id", "limit", "before_id");
    public static final String HANDED_OFF = "HANDED_OFF";
    public static final String PENDING = "PENDING";

    public record MessageView(@JsonProperty("message_id") @Schema(example = "4711") long messageId,
            @JsonProperty("created_at") @Schema(example = "2026-11-22T15:40:00.123Z") Instant createdAt,
            @JsonProperty("account_id") @Schema(example = "0b7c6f1e-3a52-4d0e-9a7e-2f1c9d4e8a10") String accountId,
            @JsonProperty("business_id") @Schema(example = "4242") String businessId,
            @JsonProperty("auth_id") @Schema(description = "The user who uploaded it", example = "user42") String authId,
            @JsonProperty("message_type") @Schema(description = "1: image, 52: document", example = "1") int messageType,
            @JsonProperty("file_name") @Schema(description = "As stored (sanitised)", example = "holiday_photo.png") String fileName,
            @JsonProperty("content_type") @Schema(example = "image/png") String contentType,
            @JsonProperty("size_bytes") @Schema(example = "48213") long sizeBytes,
            @JsonProperty("handoff") @Schema(description = "HANDED_OFF: hook-service accepted its event; PENDING: the"
                    + " event waits in the outbox", enumeration = {
                            HANDED_OFF, PENDING}, example = "PENDING") String handoff,
            @JsonProperty("handoff_attempts") @Schema(description = "Failed posts of its event so far (0 once handed"
                    + " off)", example = "3") int handoffAttempts,
            @JsonProperty("handoff_last_error") @Schema(description = "The last failed post's error, while pending", example = "hook-service answered 503") String handoffLastError){
    }

    /** Through the index on (account_id, message_id); the outbox holds only what waits, so it needs no index. */
    private static final String SELECT_PAGE = "select m.message_id, m.created_at, m.account_id, m.business_id, m.auth_id,"
            + " m.message_type, m.file_name, m.content_type, m.size_bytes, o.id, o.attempts, o.last_error"
            + " from message m left join hook_outbox o on o.message_id = m.message_id"
            + " where m.account_id = ? and m.message_id < ? order by m.message_id desc limit ?";

    private final DataSource dataSource;

    public MessageAdminResource(DataSource dataSource) {
        this.dataSource = dataSource;
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
        long before = cursor(beforeId);
        try (Connection c = dataSource.getConnection(); PreparedStatement q = c.prepareStatement(SELECT_PAGE)) {
            List<MessageView> page = new ArrayList<>();
            try (ResultSet r = LocalTransaction.bind(q, accountId, before, n).executeQuery()) {
                while (r.next()) {
                    boolean waiting = r.getString(10) != null;
                    page.add(new MessageView(r.getLong(1), r.getObject(2, OffsetDateTime.class).toInstant(),
                            r.getString(3), r.getString(4), r.getString(5), r.getInt(6), r.getString(7),
                            r.getString(8), r.getLong(9), waiting ? PENDING : HANDED_OFF,
                            waiting ? r.getInt(11) : 0, waiting ? r.getString(12) : null));
                }
            }
            return page;
        } catch (SQLException e) {
            throw new IllegalStateException("Reading the account's messages failed", e);
        }
    }

    /** The message id before which the page starts; the newest when none is given. */
    private static long cursor(String beforeId) {
        if (beforeId == null || beforeId.isBlank()) {
            return Long.MAX_VALUE;
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
