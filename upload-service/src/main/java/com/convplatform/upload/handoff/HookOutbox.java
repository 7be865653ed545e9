package com.convplatform.upload.handoff;

import java.time.Instant;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;

/** An intake event for hook-service, written in the same transaction as its message. */
@Entity
public class HookOutbox extends PanacheEntityBase {
    @Id
    public String id;
    public long messageId;
    public String payload;
    public int attempts;
    public Instant nextAttemptAt;
    public Instant sentAt;
    public String lastError;
    public String requestId;
    /** The claim of the sender that holds the event; null when none. */
    public String claimToken;
}
