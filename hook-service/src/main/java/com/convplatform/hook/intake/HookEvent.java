package com.convplatform.hook.intake;

import java.time.Instant;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;

/** An accepted event: the spec 2.2 payload (without signature_timestamp) as received, stored before the 202. */
@Entity
@Table(name = "hook_event")
public class HookEvent extends PanacheEntityBase {
    @Id
    public String id;
    @Column(name = "account_id")
    public String accountId;
    @Column(name = "message_id")
    public long messageId;
    public String payload;
    @Column(name = "received_at")
    public Instant receivedAt;
    /** X-Request-Id of the intake call, if there was one. */
    @Column(name = "request_id")
    public String requestId;
}
