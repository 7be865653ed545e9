package com.convplatform.management.account;

import java.time.Instant;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;

/** An external client's account: one business, one FQDN, one webhook URL. Never leaves the service. */
@Entity
@Table(name = "account")
public class Account extends PanacheEntityBase {
    @Id
    public String id;
    public String name;
    public String fqdn;
    @Column(name = "business_id")
    public String businessId;
    @Column(name = "webhook_url")
    public String webhookUrl;
    @Column(name = "created_at")
    public Instant createdAt;
}
