package com.convplatform.management.account;

import java.time.Instant;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;

/** A client of an account: what tokens are issued for. */
@Entity
public class Client extends PanacheEntityBase {
    @Id
    public String id;
    public String accountId;
    public String name;
    public Instant createdAt;
    /** When it was disabled; null while enabled. */
    public Instant disabledAt;
    /** Tokens issued before this are refused (README, Revocation); kept when enabled again. */
    public Instant tokensIssuedBefore;
}
