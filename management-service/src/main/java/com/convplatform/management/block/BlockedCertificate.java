package com.convplatform.management.block;

import java.time.Instant;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;

/** A certificate the operator blocked, by the SHA-256 of its DER encoding (lower-case hex). */
@Entity
public class BlockedCertificate extends PanacheEntityBase {
    @Id
    public String sha256Fingerprint;
    public String reason;
    public Instant blockedAt;
}
