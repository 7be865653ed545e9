package com.convplatform.hook.delivery;

import java.time.Instant;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;

/** The outbox row of one event to one endpoint: PENDING until DELIVERED or DEAD. Tables: entity names in snake case. */
@Entity
public class Delivery extends PanacheEntityBase {
    public static final String PENDING = "PENDING";
    public static final String DELIVERED = "DELIVERED";
    public static final String DEAD = "DEAD";

    @Id
    public String id;
    public String eventId;
    public String accountId;
    public String status;
    /** The number of the last attempt made (numbers go on over an operator's retry). */
    public int attempts;
    /** {@link #attempts} when an operator last queued it again: the retry schedule counts from there. */
    public int scheduleStart;
    public Instant nextAttemptAt;
    public String leaseOwner;
    public Instant leaseUntil;
    public String lastError;
    public Instant deliveredAt;
    public Instant createdAt;

    @Entity(name = "DeliveryAttempt")
    public static class Attempt extends PanacheEntityBase {
        @Id
        public String id;
        public String deliveryId;
        public int attempt;
        public Instant startedAt;
        public long latencyMs;
        public Integer statusCode;
        public String error;
        /** A JSON object of name to value; null: none recorded. */
        public String signatureHeaders;
    }

    /** One account endpoint's streak of failed attempts and whether it is disabled; no row: healthy and enabled. */
    @Entity(name = "EndpointState")
    public static class EndpointState extends PanacheEntityBase {
        public static final String BY_RULE = "rule";
        public static final String BY_OPERATOR = "operator";

        @Id
        public String accountId;
        public int consecutiveFailures;
        public Instant failingSince;
        public Instant lastFailureAt;
        public Instant disabledAt;
        public String disabledBy;
        public String disabledReason;
    }
}
