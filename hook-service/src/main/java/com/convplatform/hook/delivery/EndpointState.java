package com.convplatform.hook.delivery;

import java.time.Instant;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;

/** One account endpoint's streak of failed attempts and whether it is disabled; no row: healthy and enabled. */
@Entity
@Table(name = "endpoint_state")
public class EndpointState extends PanacheEntityBase {
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
