package com.convplatform.management.account;

import java.time.Instant;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;

/** An external client's account: one business, one FQDN, one webhook URL. */
@Entity
public class Account extends PanacheEntityBase {
    @Id
    public String id;
    public String name;
    public String fqdn;
    public String businessId;
    public String webhookUrl;
    public Instant createdAt;
    public boolean requireSha256;
    /** When it was disabled; null while enabled. */
    public Instant disabledAt;
    /** Tokens issued before this are refused (README, Revocation); kept when enabled again. */
    public Instant tokensIssuedBefore;
}
