package com.convplatform.upload.user;

import java.time.Instant;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;

/** A user registered for a business: who may upload under an auth_id. */
@Entity
@Table(name = "app_user")
public class AppUser extends PanacheEntityBase {
    @Id
    public String id;
    @Column(name = "auth_id")
    public String authId;
    @Column(name = "business_id")
    public String businessId;
    @Column(name = "created_at")
    public Instant createdAt;
}
