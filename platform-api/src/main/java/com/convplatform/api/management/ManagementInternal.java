package com.convplatform.api.management;

import java.time.Instant;
import java.util.List;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * management-service's internal API ({@code /internal/v1}): the account hook-service looks up for its webhook URL and
 * the revocation list upload-service polls. Readers ignore fields they do not know, so fields may be added.
 */
public final class ManagementInternal {
    static final String REQUIRE_SHA256 = "true: the account's signed requests must carry a valid Signature-256"
            + " (SHA256withRSA or SHA256withECDSA over the body); one with Signature (SHA-1) only is refused with"
            + " SIGNATURE_256_REQUIRED. false (the default): Signature, Signature-256 or both";

    private ManagementInternal() {
    }

    /** {@code GET /internal/v1/accounts/{account_id}}; 404 ACCOUNT_NOT_FOUND when unknown. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Account(
            @JsonProperty("account_id") @Schema(example = "0b7c6f1e-3a52-4d0e-9a7e-2f1c9d4e8a10") String accountId,
            @JsonProperty("name") @Schema(example = "Acme Support") String name,
            @JsonProperty("fqdn") @Schema(example = "acme.example") String fqdn,
            @JsonProperty("business_id") @Schema(example = "4242") String businessId,
            @JsonProperty("webhook_url") @Schema(example = "https://acme.example/hooks") String webhookUrl,
            @JsonProperty("created_at") @Schema(example = "2026-09-01T08:00:00Z") Instant createdAt,
            @JsonProperty("require_sha256") @Schema(description = REQUIRE_SHA256) boolean requireSha256,
            @JsonProperty("disabled_at") @Schema(description = "When an operator disabled it (POST .../disable); null"
                    + " while enabled. A disabled account or client gets no token and its tokens are refused through"
                    + " the revocation list", example = "2026-11-29T10:00:00Z") Instant disabledAt) {
    }

    /** {@code GET /internal/v1/revocations}. */
    @Schema(description = "The revocation list")
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record RevocationList(
            @JsonProperty("as_of") @Schema(description = "When the list was read; it holds every change committed before", example = "2026-11-29T10:00:05.123Z") Instant asOf,
            @JsonProperty("revoked") List<Revoked> revoked) {
    }

    @Schema(description = "A token matches when its account_id (kind account), client_id (kind client) or cert_sha256"
            + " (kind certificate) is the id, and disabled is true or its iat is before tokens_issued_before")
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Revoked(@JsonProperty("kind") @Schema(enumeration = {
            "account", "client", "certificate"}, example = "client") String kind,
            @JsonProperty("id") @Schema(description = "The account uuid, the client_id, or the certificate's SHA-256 (DER, lower-case hex)", example = "6f1c8a52-3b0e-4d7a-9a57-1f0e2b7c9d10") String id,
            @JsonProperty("tokens_issued_before") @Schema(description = "Tokens issued (iat) before this are refused, whatever disabled says; null: none by"
                    + " date", example = "2026-11-29T10:00:01Z") Instant tokensIssuedBefore,
            @JsonProperty("disabled") @Schema(description = "true: every token of it is refused (it is disabled, blocked or revoked now)") boolean disabled){
    }
}
