package com.convplatform.management.account;

import java.time.Instant;
import java.util.List;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import com.convplatform.support.ApiException;
import com.convplatform.support.audit.AuditTarget;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;

/** The API shapes of accounts, clients and certificates; entities never leave the service. */
public final class AccountViews {
    private AccountViews() {
    }

    public static String abbreviate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max) + "...";
    }

    static final String INVALID_NAME = "INVALID_NAME: name must be 1 to 200 characters";
    static final String DISABLED_AT = "When an operator disabled it (POST .../disable); null while enabled. A"
            + " disabled account or client gets no token and its tokens are refused through the revocation list";
    static final String REQUIRE_SHA256 = "true: the account's signed requests must carry a valid Signature-256"
            + " (SHA256withRSA or SHA256withECDSA over the body); one with Signature (SHA-1) only is refused with"
            + " SIGNATURE_256_REQUIRED. false (the default): Signature, Signature-256 or both";

    public record NewAccount(
            @NotBlank(message = INVALID_NAME) @Size(max = 200, message = INVALID_NAME) @Schema(example = "Example Shop") String name,
            @NotNull(message = INVALID_FQDN) @Size(max = 253, message = INVALID_FQDN) @Pattern(regexp = FQDN, flags = Pattern.Flag.CASE_INSENSITIVE, message = INVALID_FQDN) @Schema(example = "client.example.com") String fqdn,
            @NotNull(message = INVALID_BUSINESS) @Pattern(regexp = "[0-9]{1,32}", message = INVALID_BUSINESS) @Schema(example = "4711") String businessId,
            @NotNull(message = INVALID_WEBHOOK) @Size(max = 2048, message = INVALID_WEBHOOK) @Schema(example = "https://client.example.com/hooks") String webhookUrl,
            @Schema(description = REQUIRE_SHA256, defaultValue = "false") Boolean requireSha256) {
        static final String FQDN = "([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?";
        static final String INVALID_FQDN = "INVALID_FQDN: fqdn must be a fully qualified DNS name such as"
                + " client.example.com (no trailing dot, no IP address, no scheme or path)";
        static final String INVALID_BUSINESS = "INVALID_BUSINESS_ID: business_id must be a string of 1 to 32 digits";
        static final String INVALID_WEBHOOK = "INVALID_WEBHOOK_URL: webhook_url is required (an https URL of at"
                + " most 2048 characters)";
    }

    public record NewClient(
            @NotBlank(message = INVALID_NAME) @Size(max = 200, message = INVALID_NAME) @Schema(example = "web shop backend") String name) {
    }

    public record NewCertificate(
            @NotBlank(message = "MISSING_FIELD: send {\"certificate\": \"<PEM of the self-signed certificate>\"}") @Schema(example = "-----BEGIN CERTIFICATE-----\nMIIB...\n-----END CERTIFICATE-----\n") String certificate) {
    }

    public record AccountView(@Schema(example = "0b7c6f1e-3a52-4d0e-9a7e-2f1c9d4e8a10") String accountId,
            @Schema(example = "Acme Support") String name, @Schema(example = "acme.example") String fqdn,
            @Schema(example = "4242") String businessId,
            @Schema(example = "https://acme.example/hooks") String webhookUrl,
            @Schema(example = "2026-09-01T08:00:00Z") Instant createdAt,
            @Schema(description = REQUIRE_SHA256) boolean requireSha256,
            @Schema(description = DISABLED_AT, example = "2026-11-29T10:00:00Z") Instant disabledAt)
            implements
                AuditTarget {
        @Override
        public String auditTarget() {
            return "account_id=" + accountId;
        }

        static AccountView of(Account a) {
            return new AccountView(a.id, a.name, a.fqdn, a.businessId, a.webhookUrl, a.createdAt, a.requireSha256,
                    a.disabledAt);
        }
    }

    /** What PATCH and PUT may change: any other field is refused, so that nobody believes an FQDN was changed. */
    public record AccountSettings(@Schema(description = REQUIRE_SHA256, required = true) boolean requireSha256) {
        static final String FIELD = "require_sha256";

        public static AccountSettings of(JsonNode body) {
            if (body == null || !body.isObject()) {
                throw new ApiException(400, "MISSING_FIELD", "Send a JSON object: {\"" + FIELD + "\": true}");
            }
            for (var field : body.properties()) {
                if (!field.getKey().equals(FIELD)) {
                    throw new ApiException(400, "FIELD_NOT_CHANGEABLE", "'" + abbreviate(field.getKey(), 40)
                            + "' cannot be changed: only " + FIELD + " can; name, fqdn, business_id and webhook_url"
                            + " are fixed when the account is created");
                }
            }
            JsonNode value = body.get(FIELD);
            if (value == null || !value.isBoolean()) {
                throw new ApiException(400, value == null ? "MISSING_FIELD" : "INVALID_REQUIRE_SHA256",
                        FIELD + " must be true or false (JSON booleans)");
            }
            return new AccountSettings(value.booleanValue());
        }
    }

    /** In the operator API with disabled_at when disabled; the signed client enumeration (spec 4.2) never has it. */
    public record ClientView(@Schema(example = "6f1c8a52-3b0e-4d7a-9a57-1f0e2b7c9d10") String clientId,
            @Schema(example = "support-bot") String name, @Schema(example = "2026-11-25T10:00:00Z") Instant createdAt,
            @JsonInclude(JsonInclude.Include.NON_NULL) @Schema(description = "Operator API only, and only while the"
                    + " client is disabled: " + DISABLED_AT, example = "2026-11-29T10:00:00Z") Instant disabledAt)
            implements
                AuditTarget {
        @Override
        public String auditTarget() {
            return "client_id=" + clientId;
        }

        static ClientView of(Client c) {
            return new ClientView(c.id, c.name, c.createdAt, c.disabledAt);
        }
    }

    public record CertificateView(@Schema(example = "0c5b8e4a-7d21-4f3a-b9e6-5a1d2c3b4e5f") String certificateUuid,
            @Schema(example = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08") String sha256Fingerprint,
            @Schema(example = "2027-11-25T10:00:00Z") Instant notAfter,
            @Schema(example = "2026-11-25T10:00:00Z") Instant createdAt,
            @Schema(description = "None while the certificate is in use") Instant revokedAt) implements AuditTarget {
        @Override
        public String auditTarget() {
            return "certificate_uuid=" + certificateUuid;
        }

        static CertificateView of(RegisteredCertificate c) {
            return new CertificateView(c.id, c.sha256Fingerprint, c.notAfter, c.createdAt, c.revokedAt);
        }
    }

    public record ClientList(List<ClientView> clients) {
    }
}
