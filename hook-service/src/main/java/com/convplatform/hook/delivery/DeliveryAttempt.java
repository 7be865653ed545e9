package com.convplatform.hook.delivery;

import java.time.Instant;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;

/** One HTTP attempt of a delivery. */
@Entity
@Table(name = "delivery_attempt")
public class DeliveryAttempt extends PanacheEntityBase {
    @Id
    public String id;
    @Column(name = "delivery_id")
    public String deliveryId;
    public int attempt;
    @Column(name = "started_at")
    public Instant startedAt;
    @Column(name = "latency_ms")
    public long latencyMs;
    @Column(name = "status_code")
    public Integer statusCode;
    public String error;
}
