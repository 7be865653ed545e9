package com.convplatform.management.account;

import java.time.Instant;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;

/** A self-signed certificate an account registered; named by SignatureCertUUID. */
@Entity
@Table(name = "registered_certificate")
public class RegisteredCertificate extends PanacheEntityBase {
    @Id
    public String id;
    @Column(name = "account_id")
    public String accountId;
    public String pem;
    @Column(name = "sha256_fingerprint")
    public String sha256Fingerprint;
    @Column(name = "not_after")
    public Instant notAfter;
    @Column(name = "created_at")
    public Instant createdAt;
    @Column(name = "revoked_at")
    public Instant revokedAt;
}
