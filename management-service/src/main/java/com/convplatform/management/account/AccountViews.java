package com.convplatform.management.account;

import java.time.Instant;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonProperty;

/** The API shapes of accounts, clients and certificates; entities never leave the service. */
public final class AccountViews {
    private AccountViews() {
    }

    public record NewAccount(String name, String fqdn, @JsonProperty("business_id") String businessId,
            @JsonProperty("webhook_url") String webhookUrl) {
    }

    public record NewClient(String name) {
    }

    public record NewCertificate(String certificate) {
    }

    public record AccountView(@JsonProperty("account_id") String accountId, String name, String fqdn,
            @JsonProperty("business_id") String businessId, @JsonProperty("webhook_url") String webhookUrl,
            @JsonProperty("created_at") Instant createdAt) {
        static AccountView of(Account a) {
            return new AccountView(a.id, a.name, a.fqdn, a.businessId, a.webhookUrl, a.createdAt);
        }
    }

    public record ClientView(@JsonProperty("client_id") String clientId, String name,
            @JsonProperty("created_at") Instant createdAt) {
        static ClientView of(Client c) {
            return new ClientView(c.id, c.name, c.createdAt);
        }
    }

    public record CertificateView(@JsonProperty("certificate_uuid") String certificateUuid,
            @JsonProperty("sha256_fingerprint") String sha256Fingerprint, @JsonProperty("not_after") Instant notAfter,
            @JsonProperty("created_at") Instant createdAt, @JsonProperty("revoked_at") Instant revokedAt) {
        static CertificateView of(RegisteredCertificate c) {
            return new CertificateView(c.id, c.sha256Fingerprint, c.notAfter, c.createdAt, c.revokedAt);
        }
    }

    public record ClientList(List<ClientView> clients) {
    }
}
