package com.convplatform.management.signed;

import java.io.IOException;
import java.util.List;
import java.util.Locale;

import jakarta.enterprise.context.ApplicationScoped;

import com.convplatform.crypto.FailureCode;
import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.management.ManagementHeaders;
import com.convplatform.crypto.management.ManagementRequestVerifier;
import com.convplatform.management.account.AccountService;
import com.convplatform.management.account.AccountViews;
import com.convplatform.management.account.AccountViews.ClientList;
import com.convplatform.management.block.CertificateBlocks;
import com.convplatform.management.signed.SignedApiResource.Headers;
import com.convplatform.management.token.TokenService;
import com.convplatform.management.token.TokenService.TokenResponse;
import com.convplatform.support.ApiException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/** The signed management operations (spec 4.1, 4.2, 5.1); nothing is written before verification succeeds. */
@ApplicationScoped
public class SignedRequestService {
    private static final int MAX_BODY = 64 * 1024;
    /** A busy certificate host's downloads end within 5 s. */
    private static final int BUSY_RETRY_AFTER_SECONDS = 5;

    private static final ObjectMapper STRICT = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private final ManagementRequestVerifier verifier;
    private final AccountService accounts;
    private final TokenService tokens;
    private final RequestLimits limits;
    private final CertificateBlocks blocks;
    private final MeterRegistry metrics;
    private final Timer verificationTimer;
    private final Counter tokensIssued;

    public SignedRequestService(ManagementRequestVerifier verifier, AccountService accounts, TokenService tokens,
            RequestLimits limits, CertificateBlocks blocks, MeterRegistry metrics) {
        this.verifier = verifier;
        this.limits = limits;
        this.blocks = blocks;
        this.accounts = accounts;
        this.tokens = tokens;
        this.metrics = metrics;
        this.verificationTimer = Timer.builder("management.signed.verification")
                .description("Time to verify a signed management request (all four spec 5.1 steps)").register(metrics);
        this.tokensIssued = metrics.counter("management.tokens.issued");
    }

    public TokenResponse issueToken(byte[] body, Headers headers, String source) {
        Verified v = verify(body, headers, source, true);
        String clientId = v.json.get("client_id").asText();
        if (!accounts.isClientOf(v.account.id(), clientId)) {
            throw refuse(403, "CLIENT_NOT_IN_ACCOUNT", "The client " + AccountViews.abbreviate(clientId, 80)
                    + " does not belong to the account of " + v.account.fqdn()
                    + "; list the account's clients with the client enumeration operation");
        }
        TokenResponse token = tokens.issue(clientId, v.account.id(), v.account.businessId());
        tokensIssued.increment();
        return token;
    }

    public ClientList listClients(byte[] body, Headers headers, String source) {
        Verified v = verify(body, headers, source, false);
        return new ClientList(accounts.clients(v.account.id()));
    }

    private record Verified(AccountService.Signer account, JsonNode json) {
    }

    private Verified verify(byte[] in, Headers h, String source, boolean needsClient) {
        limits.checkSource(source);
        if (h.contentType() == null || !h.contentType().toLowerCase(Locale.ROOT).startsWith("application/json")) {
            throw refuse(415, "UNSUPPORTED_MEDIA_TYPE", "Send the body as Content-Type: application/json");
        }
        byte[] body = in == null ? new byte[0] : in;
        if (body.length > MAX_BODY) {
            throw new ApiException(413, "BODY_TOO_LARGE",
                    "The body is larger than " + MAX_BODY + " bytes; management requests are small JSON objects");
        }
        JsonNode json;
        try {
            json = STRICT.readTree(body);
        } catch (JsonProcessingException e) {
            throw refuse(400, "MALFORMED_JSON", "The body is not one valid JSON object (duplicate keys and data after"
                    + " it are refused too): " + e.getOriginalMessage());
        } catch (IOException e) {
            throw refuse(400, "MALFORMED_JSON", "The body is not valid JSON");
        }
        if (json == null || !json.isObject()) {
            throw refuse(400, "MALFORMED_JSON", "The body must be one JSON object");
        }
        for (String field : needsClient ? List.of("client_id", "fqdn", "timestamp") : List.of("fqdn", "timestamp")) {
            if (!json.hasNonNull(field) || !json.get(field).isTextual() || json.get(field).asText().isEmpty()) {
                throw refuse(400, "MISSING_FIELD", "The body needs the string field '" + field + "'");
            }
        }
        String fqdn = json.get("fqdn").asText();
        AccountService.Signer account = accounts.byFqdn(fqdn).orElseThrow(() -> refuse(400, "UNKNOWN_ACCOUNT",
                "No account is registered for the FQDN '" + AccountViews.abbreviate(fqdn, 80) + "'"));
        limits.checkAccount(account.fqdn());
        // The account's policy, before any certificate work: a request it will refuse costs no chain download.
        if (h.signature256() == null && accounts.requiresSha256(account.id())) {
            throw refuse(400, "SIGNATURE_256_REQUIRED", "The account of " + account.fqdn() + " requires SHA-256"
                    + " signatures: send " + ManagementHeaders.SIGNATURE_256 + " (SHA256withRSA or SHA256withECDSA over"
                    + " the exact body bytes, Base64), with or without " + ManagementHeaders.SIGNATURE);
        }
        var request = new ManagementRequestVerifier.Request(body, account.fqdn(), json.get("timestamp").asText(),
                h.signature(), h.certChainUrl(), h.certUuid(), h.signature256());
        Timer.Sample verification = Timer.start(metrics);
        try {
            ManagementRequestVerifier.Verified verified = verifier.verify(request,
                    uuid -> accounts.activeCertificate(account.id(), uuid));
            blocks.check(verified.chain());
            metrics.counter("management.signed.accepted", "signatures",
                    verified.sha256() ? (verified.algorithms().size() == 2 ? "both" : "sha256") : "sha1").increment();
        } catch (VerificationException e) {
            // a busy certificate host is not the request's fault: the same request may succeed later
            boolean busy = e.code() == FailureCode.CERT_FETCH_BUSY;
            throw refuse(busy ? 503 : 400, e.code().name(), e.getMessage(), busy ? BUSY_RETRY_AFTER_SECONDS : 0);
        } finally {
            verification.stop(verificationTimer);
        }
        return new Verified(account, json);
    }

    private ApiException refuse(int status, String code, String message) {
        return refuse(status, code, message, 0);
    }

    private ApiException refuse(int status, String code, String message, int retryAfterSeconds) {
        metrics.counter("management.signed.rejections", "code", code).increment();
        return new ApiException(status, code, message, retryAfterSeconds);
    }
}
