package com.convplatform.upload.user;

import java.time.Instant;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;

/** A user registered for a business: who may upload under an auth_id. */
@Entity
public class AppUser extends PanacheEntityBase {
    @Id
    public String id;
    public String authId;
    public String businessId;
    public Instant createdAt;
}
