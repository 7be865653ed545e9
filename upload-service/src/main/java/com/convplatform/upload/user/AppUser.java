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

    /**
     * Whether {@code authId} is registered for {@code businessId}. One fixed query string, so Hibernate translates it
     * once and reuses the plan (a Panache {@code count(...)} is translated again on every call, which showed as 15 %
     * of the CPU of an upload in the load test's profile).
     */
    public static boolean registered(String authId, String businessId) {
        return !getEntityManager()
                .createQuery("select 1 from AppUser u where u.businessId = ?1 and u.authId = ?2", Integer.class)
                .setParameter(1, businessId).setParameter(2, authId).setMaxResults(1).getResultList().isEmpty();
    }
}
