package com.convplatform.upload.message;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Iterator;
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
    /**
     * The message, only if its user is registered for the business: the check is the insert's, so an upload that passes
     * costs one statement, not two (README, "Checks"). No row means the user is not registered.
     */
    private static final String INSERT_MESSAGE = "insert into message (account_id, client_id, business_id, auth_id,"
            + " message_type, message_body, file_id, file_name, content_type, size_bytes, created_at)"
            + " select ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?"
            + " where exists (select 1 from app_user where business_id = ? and auth_id = ?)";

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
     * Uploads that finish together share one transaction ({@link GroupCommit}): their messages in one batch, then their
     * events, written claimed by this replica; returns the events in order, null for an upload whose user is not
     * registered (nothing of it is written). Plain JDBC in a local transaction: through Hibernate these inserts took
     * most of the writer thread's time, and JTA a seventh of what was left.
     */
    List<Claimed> recordAll(List<ToRecord> uploads, Events events) {
        return LocalTransaction.run(dataSource, "Recording the uploads", c -> {
            Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
            OffsetDateTime createdAt = OffsetDateTime.ofInstant(now, ZoneOffset.UTC);
            int[] inserted;
            List<Long> ids = new ArrayList<>(uploads.size());
            try (PreparedStatement message = c.prepareStatement(INSERT_MESSAGE, new String[]{"message_id"})) {
                for (ToRecord u : uploads) {
                    LocalTransaction.bind(message, u.caller().accountId(), u.caller().clientId(), u.businessId(),
                            u.authId(), u.type(), u.body(), u.fileId(), u.name(), u.contentType(), u.size(), createdAt,
                            u.businessId(), u.authId()).addBatch();
                }
                inserted = message.executeBatch();
                try (ResultSet keys = message.getGeneratedKeys()) {
                    while (keys.next()) {
                        ids.add(keys.getLong(1));
                    }
                }
            }
            List<OutboxRepository.ToHandOn> out = new ArrayList<>(ids.size());
            for (int i = 0, next = 0; i < uploads.size(); i++) {
                if (inserted[i] > 0) {
                    if (next == ids.size()) {
                        throw new IllegalStateException("The database returned fewer message ids than rows");
                    }
                    out.add(new OutboxRepository.ToHandOn(events.of(uploads.get(i), ids.get(next++), now),
                            uploads.get(i).traceparent(), now));
                }
            }
            Iterator<Claimed> written = outbox.insertClaimed(c, out).iterator();
            List<Claimed> result = new ArrayList<>(uploads.size());
            for (int count : inserted) {
                result.add(count > 0 ? written.next() : null);
            }
            return result;
        });
    }
}
