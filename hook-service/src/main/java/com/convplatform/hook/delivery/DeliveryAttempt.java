package com.convplatform.hook.delivery;

import java.time.Instant;

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
    public String deliveryId;
    public int attempt;
    public Instant startedAt;
    public long latencyMs;
    public Integer statusCode;
    public String error;
}
