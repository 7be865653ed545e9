package com.convplatform.upload.message;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;

import com.convplatform.api.intake.IntakeEvent;
import com.convplatform.support.GroupCommit;
import com.convplatform.support.LocalTransaction;
import com.convplatform.support.SqlExists;
import com.convplatform.upload.handoff.Claimed;
import com.convplatform.upload.handoff.OutboxRepository;
import com.convplatform.upload.message.UploadService.ToRecord;

/** The SQL of an upload: whether its user is registered, and its message written with its hand-off event. */
@ApplicationScoped
class MessageRepository {
    private static final String INSERT_MESSAGE = "insert into message (account_id, client_id, business_id, auth_id,"
            + " message_type, message_body, file_id, file_name, content_type, size_bytes, created_at)"
            + " values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

    private final DataSource dataSource;
    private final OutboxRepository outbox;
    private final Clock clock;

    MessageRepository(DataSource dataSource, OutboxRepository outbox, Clock clock) {
        this.dataSource = dataSource;
        this.outbox = outbox;
        this.clock = clock;
    }

    /** The hand-off event of an upload recorded as message {@code messageId} at {@code at}. */
    interface Events {
        IntakeEvent of(ToRecord upload, long messageId, Instant at);
    }

    boolean userRegistered(String businessId, String authId) {
        return SqlExists.exists(dataSource, "the registered users",
                "select 1 from app_user where business_id = ? and auth_id = ?", businessId, authId);
    }

    /**
     * Uploads that finish together share one transaction ({@link GroupCommit}): each one's message, then their events,
     * written claimed by this replica; returns the events in order. Plain JDBC in a local transaction: through
     * Hibernate these inserts took most of the writer thread's time, and JTA a seventh of what was left.
     */
    List<Claimed> recordAll(List<ToRecord> uploads, Events events) {
        return LocalTransaction.run(dataSource, "Recording the uploads", c -> {
            List<OutboxRepository.ToHandOn> out = new ArrayList<>(uploads.size());
            try (PreparedStatement message = c.prepareStatement(INSERT_MESSAGE, Statement.RETURN_GENERATED_KEYS)) {
                for (ToRecord u : uploads) {
                    Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
                    LocalTransaction.bind(message, u.caller().accountId(), u.caller().clientId(), u.businessId(),
                            u.authId(), u.type(), u.body(), u.fileId(), u.name(), u.contentType(), u.size(),
                            OffsetDateTime.ofInstant(now, ZoneOffset.UTC));
                    message.executeUpdate();
                    try (ResultSet key = message.getGeneratedKeys()) {
                        if (!key.next()) {
                            throw new IllegalStateException("The database returned no message id");
                        }
                        out.add(new OutboxRepository.ToHandOn(events.of(u, key.getLong(1), now), u.traceparent(), now));
                    }
                }
            }
            return outbox.insertClaimed(c, out);
        });
    }
}
