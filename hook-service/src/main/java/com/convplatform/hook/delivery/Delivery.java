package com.convplatform.hook.delivery;

import java.time.Instant;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;

/** The outbox row of one event to one endpoint: PENDING until DELIVERED or DEAD. */
@Entity
@Table(name = "delivery")
public class Delivery extends PanacheEntityBase {
    public static final String PENDING = "PENDING";
    public static final String DELIVERED = "DELIVERED";
    public static final String DEAD = "DEAD";

    @Id
    public String id;
    @Column(name = "event_id")
    public String eventId;
    @Column(name = "account_id")
    public String accountId;
    public String status;
    public int attempts;
    @Column(name = "next_attempt_at")
    public Instant nextAttemptAt;
    @Column(name = "lease_owner")
    public String leaseOwner;
    @Column(name = "lease_until")
    public Instant leaseUntil;
    @Column(name = "last_error")
    public String lastError;
    @Column(name = "delivered_at")
    public Instant deliveredAt;
    @Column(name = "created_at")
    public Instant createdAt;
}
