package com.convplatform.hook.delivery;

import java.time.Instant;

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
    public String eventId;
    public String accountId;
    public String status;
    public int attempts;
    public Instant nextAttemptAt;
    public String leaseOwner;
    public Instant leaseUntil;
    public String lastError;
    public Instant deliveredAt;
    public Instant createdAt;
}
