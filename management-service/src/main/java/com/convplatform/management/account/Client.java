package com.convplatform.management.account;

import java.time.Instant;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;

/** A client of an account: what tokens are issued for. */
@Entity
@Table(name = "client")
public class Client extends PanacheEntityBase {
    @Id
    public String id;
    @Column(name = "account_id")
    public String accountId;
    public String name;
    @Column(name = "created_at")
    public Instant createdAt;
}
