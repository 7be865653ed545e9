package com.convplatform.upload.handoff;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import com.convplatform.upload.message.Message;

/** Messages and outbox rows written straight to the database by the outbox tests; call within a transaction. */
final class OutboxRows {
    private OutboxRows() {
    }

    /** A logged message of account-1's user42, created at {@code createdAt} (persisted). */
    static Message message(String body, Instant createdAt) {
        Message m = new Message();
        m.accountId = "account-1";
        m.clientId = "client-1";
        m.businessId = "1001";
        m.authId = "user42";
        m.messageType = 1;
        m.messageBody = body;
        m.fileId = UUID.randomUUID().toString().replace("-", "");
        m.fileName = "a.png";
        m.contentType = "image/png";
        m.sizeBytes = 1;
        m.createdAt = createdAt;
        m.persist();
        return m;
    }

    /** The message's outbox row, due at {@code due}, with the event the service would have written (not persisted). */
    static HookOutbox row(Message m, Instant due) {
        HookOutbox o = new HookOutbox();
        o.id = UUID.randomUUID().toString();
        o.messageId = m.messageId;
        o.payload = "{\"account_id\":\"account-1\",\"message_id\":" + m.messageId + "}";
        o.nextAttemptAt = due;
        return o;
    }

    /** A message logged at {@code logged} whose event failed seven posts and waits an hour for the next (persisted). */
    static String stuckEvent(String body, Instant logged) {
        HookOutbox o = row(message(body, logged), Instant.now().plus(Duration.ofHours(1)));
        o.attempts = 7;
        o.lastError = "503 from hook-service";
        o.persist();
        return o.id;
    }
}
