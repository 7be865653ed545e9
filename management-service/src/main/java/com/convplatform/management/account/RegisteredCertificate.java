package com.convplatform.management.account;

import java.time.Instant;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;

/** A self-signed certificate an account registered; named by SignatureCertUUID. */
@Entity
public class RegisteredCertificate extends PanacheEntityBase {
    @Id
    public String id;
    public String accountId;
    public String pem;
    public String sha256Fingerprint;
    public Instant notAfter;
    public Instant createdAt;
    public Instant revokedAt;
}
