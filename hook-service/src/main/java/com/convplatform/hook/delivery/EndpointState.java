package com.convplatform.hook.delivery;

import java.time.Instant;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;

/**
 * The health of one account's endpoint: its current streak of failed attempts and whether it is disabled. No row
 * means healthy and enabled.
 */
@Entity
@Table(name = "endpoint_state")
public class EndpointState extends PanacheEntityBase {
    public static final String BY_RULE = "rule";
    public static final String BY_OPERATOR = "operator";

    @Id
    @Column(name = "account_id")
    public String accountId;
    @Column(name = "consecutive_failures")
    public int consecutiveFailures;
    @Column(name = "failing_since")
    public Instant failingSince;
    @Column(name = "last_failure_at")
    public Instant lastFailureAt;
    @Column(name = "disabled_at")
    public Instant disabledAt;
    @Column(name = "disabled_by")
    public String disabledBy;
    @Column(name = "disabled_reason")
    public String disabledReason;
}
