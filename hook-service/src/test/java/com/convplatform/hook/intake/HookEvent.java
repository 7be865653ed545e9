package com.convplatform.hook.intake;

import java.time.Instant;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;

/** An accepted event as stored (intake writes it with plain JDBC; tests write rows of their own with this). */
@Entity
@Table(name = "hook_event")
public class HookEvent extends PanacheEntityBase {
    @Id
    public String id;
    public String accountId;
    public long messageId;
    public String payload;
    public Instant receivedAt;
    /** X-Request-Id of the intake call, if there was one. */
    public String requestId;
}
