package com.convplatform.management.block;

import java.time.Instant;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;

/** A purge of the cached chains of one account (fqdn) or of all (fqdn null), applied by every replica once. */
@Entity
public class ChainPurge extends PanacheEntityBase {
    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;
    public String fqdn;
    public Instant requestedAt;
}
