package com.convplatform.upload.message;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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

    private static final String PAGE = "select message_id, created_at, account_id, business_id, auth_id, message_type,"
            + " file_name, content_type, size_bytes from message where account_id = ? and message_id < ?"
            + " order by message_id desc limit ?";
    private static final String WAITING = "select message_id, attempts, last_error from hook_outbox"
            + " where message_id in (%s)";

    private final DataSource dataSource;

    public MessageHistory(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /**
     * At most {@code limit} of the account's messages older than {@code beforeId} (a message id; null for the newest),
     * newest first. Two reads: the page, through the index on (account_id, message_id); then the outbox rows of its
     * messages (the outbox holds only what waits, and has no index on message_id, which every upload would pay for).
     */
    public List<MessageView> recent(String accountId, Long beforeId, int limit) {
        try (Connection c = dataSource.getConnection()) {
            List<MessageView> page = new ArrayList<>();
            try (PreparedStatement q = c.prepareStatement(PAGE)) {
                q.setString(1, accountId);
                q.setLong(2, beforeId == null ? Long.MAX_VALUE : beforeId);
                q.setInt(3, limit);
                try (ResultSet r = q.executeQuery()) {
                    while (r.next()) {
                        page.add(new MessageView(r.getLong(1), r.getObject(2, OffsetDateTime.class).toInstant(),
                                r.getString(3), r.getString(4), r.getString(5), r.getInt(6), r.getString(7),
                                r.getString(8), r.getLong(9), HANDED_OFF, 0, null));
                    }
                }
            }
            Map<Long, MessageView> waiting = waiting(c, page);
            return page.stream().map(m -> waiting.getOrDefault(m.messageId(), m)).toList();
        } catch (SQLException e) {
            throw new IllegalStateException("Reading the account's messages failed", e);
        }
    }

    /** Those of the messages whose event is still in the outbox, as pending, by message id. */
    private static Map<Long, MessageView> waiting(Connection c, List<MessageView> messages) throws SQLException {
        if (messages.isEmpty()) {
            return Map.of();
        }
        Map<Long, MessageView> byId = new HashMap<>();
        messages.forEach(m -> byId.put(m.messageId(), m));
        Map<Long, MessageView> out = new HashMap<>();
        String marks = String.join(", ", Collections.nCopies(messages.size(), "?"));
        try (PreparedStatement q = c.prepareStatement(WAITING.formatted(marks))) {
            for (int i = 0; i < messages.size(); i++) {
                q.setLong(i + 1, messages.get(i).messageId());
            }
            try (ResultSet r = q.executeQuery()) {
                while (r.next()) {
                    MessageView m = byId.get(r.getLong(1));
                    out.put(m.messageId(), new MessageView(m.messageId(), m.createdAt(), m.accountId(),
                            m.businessId(), m.authId(), m.messageType(), m.fileName(), m.contentType(),
                            m.sizeBytes(), PENDING, r.getInt(2), r.getString(3)));
                }
            }
        }
        return out;
    }
}
