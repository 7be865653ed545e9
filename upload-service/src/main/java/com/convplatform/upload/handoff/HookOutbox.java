package com.convplatform.upload.handoff;

import java.time.Instant;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;

/** An intake event for hook-service, written in the same transaction as its message. */
@Entity
@Table(name = "hook_outbox")
public class HookOutbox extends PanacheEntityBase {
    @Id
    public String id;
    @Column(name = "message_id")
    public long messageId;
    public String payload;
    public int attempts;
    @Column(name = "next_attempt_at")
    public Instant nextAttemptAt;
    @Column(name = "sent_at")
    public Instant sentAt;
    @Column(name = "last_error")
    public String lastError;
    /** X-Request-Id of the upload, passed on to hook-service. */
    @Column(name = "request_id")
    public String requestId;
    /** The batch of the sender that claimed the event while it posts it; null when no sender holds it. */
    @Column(name = "claim_token")
    public String claimToken;
}
