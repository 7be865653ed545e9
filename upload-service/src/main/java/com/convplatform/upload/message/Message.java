package com.convplatform.upload.message;

import java.time.Instant;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;

/** A logged uploaded file (spec 2.3), columns in snake case (quarkus.hibernate-orm.physical-naming-strategy). */
@Entity
public class Message extends PanacheEntityBase {
    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long messageId;
    public String accountId;
    public String clientId;
    public String businessId;
    public String authId;
    public int messageType;
    public String messageBody;
    public String fileId;
    public String fileName;
    public String contentType;
    public long sizeBytes;
    public Instant createdAt;
}
