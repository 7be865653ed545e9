package com.convplatform.upload.message;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * An account's logged uploads for operators, newest first, each with its hand-off state: an uploaded message whose
 * event is still in the outbox waits for hook-service ({@code PENDING}); one whose event is gone was accepted by
 * hook-service ({@code HANDED_OFF}: the outbox keeps only events not yet accepted). Neither the message body nor the
 * file's URL is shown: the body is the customer's text, and the URL alone downloads the file.
 */
@ApplicationScoped
public class MessageHistory {
    public static final String HANDED_OFF = "HANDED_OFF";
    public static final String PENDING = "PENDING";

    /** One uploaded message. */
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

    /**
     * The page through the index on (account_id, message_id), each message with its outbox row if it still has one (the
     * outbox holds only what waits, a few rows, so the join reads it whole rather than needing an index of its own).
     */
    private static final String PAGE = "select m.message_id, m.created_at, m.account_id, m.business_id, m.auth_id,"
            + " m.message_type, m.file_name, m.content_type, m.size_bytes, o.id, o.attempts, o.last_error"
            + " from message m left join hook_outbox o on o.message_id = m.message_id"
            + " where m.account_id = ? and m.message_id < ? order by m.message_id desc limit ?";

    private final DataSource dataSource;

    public MessageHistory(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /**
     * At most {@code limit} of the account's messages older than {@code beforeId} (a message id; null for the newest),
     * newest first.
     */
    public List<MessageView> recent(String accountId, Long beforeId, int limit) {
        try (Connection c = dataSource.getConnection(); PreparedStatement q = c.prepareStatement(PAGE)) {
            q.setString(1, accountId);
            q.setLong(2, beforeId == null ? Long.MAX_VALUE : beforeId);
            q.setInt(3, limit);
            List<MessageView> page = new ArrayList<>();
            try (ResultSet r = q.executeQuery()) {
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
}
