package com.convplatform.upload.message;

import java.time.Instant;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;

/** A logged uploaded-file message (spec 2.3). */
@Entity
@Table(name = "message")
public class Message extends PanacheEntityBase {
    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    @Column(name = "message_id")
    public Long messageId;
    @Column(name = "account_id")
    public String accountId;
    @Column(name = "client_id")
    public String clientId;
    @Column(name = "business_id")
    public String businessId;
    @Column(name = "auth_id")
    public String authId;
    @Column(name = "message_type")
    public int messageType;
    @Column(name = "message_body")
    public String messageBody;
    @Column(name = "file_id")
    public String fileId;
    @Column(name = "file_name")
    public String fileName;
    @Column(name = "content_type")
    public String contentType;
    @Column(name = "size_bytes")
    public long sizeBytes;
    @Column(name = "created_at")
    public Instant createdAt;
}
