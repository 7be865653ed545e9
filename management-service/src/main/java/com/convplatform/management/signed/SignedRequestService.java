package com.convplatform.management.signed;

import java.io.IOException;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import com.convplatform.crypto.FailureCode;
import com.convplatform.crypto.Fingerprints;
import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.management.ManagementHeaders;
import com.convplatform.crypto.management.ManagementRequestVerifier;
import com.convplatform.crypto.url.ManagementCertUrlRule;
import com.convplatform.management.account.AccountService;
import com.convplatform.management.account.AccountViews;
import com.convplatform.management.account.AccountViews.ClientList;
import com.convplatform.management.account.CertificateService;
import com.convplatform.management.account.ClientService;
import com.convplatform.management.block.CertificateBlocks;
import com.convplatform.management.signed.SignedApiResource.Headers;
import com.convplatform.management.token.TokenService;
import com.convplatform.management.token.TokenService.TokenResponse;
import com.convplatform.support.ApiException;
import com.convplatform.support.Workers;
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
    private static final Logger LOG = Logger.getLogger(SignedRequestService.class);
    private static final int MAX_BODY = 64 * 1024;
    /** A busy certificate host's downloads end within 5 s. */
    private static final int BUSY_RETRY_AFTER_SECONDS = 5;

    private static final ObjectMapper STRICT = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private final ManagementRequestVerifier verifier;
    private final AccountService accounts;
    private final ClientService clients;
    private final CertificateService certificates;
    private final TokenService tokens;
    private final RequestLimits limits;
    private final CertificateBlocks blocks;
    private final MeterRegistry metrics;
    private final Timer verificationTimer;
    private final Counter tokensIssued;
    private final Counter acceptedSha1;
    private final Counter acceptedSha256;
    private final Counter acceptedBoth;

    public SignedRequestService(ManagementRequestVerifier verifier, AccountService accounts, ClientService clients,
            CertificateService certificates, TokenService tokens, RequestLimits limits, CertificateBlocks blocks,
            MeterRegistry metrics) {
        this.verifier = verifier;
        this.limits = limits;
        this.blocks = blocks;
        this.accounts = accounts;
        this.clients = clients;
        this.certificates = certificates;
        this.tokens = tokens;
        this.metrics = metrics;
        this.verificationTimer = Timer.builder("management.signed.verification")
                .description("Time to verify a signed management request (all four spec 5.1 steps)").register(metrics);
        this.tokensIssued = metrics.counter("management.tokens.issued");
        this.acceptedSha1 = metrics.counter("management.signed.accepted", "signatures", "sha1");
        this.acceptedSha256 = metrics.counter("management.signed.accepted", "signatures", "sha256");
        this.acceptedBoth = metrics.counter("management.signed.accepted", "signatures", "both");
    }

    public TokenResponse issueToken(byte[] body, Headers headers, String source) {
        Verified v = verify(body, headers, source, true);
        String clientId = v.json.get("client_id").asText();
        if (!clients.isClientOf(v.account.id(), clientId)) {
            throw refuse(403, "CLIENT_NOT_IN_ACCOUNT", "The client " + AccountViews.abbreviate(clientId, 80)
                    + " does not belong to the account of " + v.account.fqdn()
                    + "; list the account's clients with the client enumeration operation");
        }
        if (clients.clientDisabled(clientId)) {
            throw refuse(403, "CLIENT_DISABLED", "The client " + clientId + " is disabled by the platform operator:"
                    + " it gets no token, and the tokens it has are refused; ask the operator");
        }
        TokenResponse token = tokens.issue(clientId, v.account.id(), v.account.businessId(), v.certSha256);
        tokensIssued.increment();
        return token;
    }

    public ClientList listClients(byte[] body, Headers headers, String source) {
        Verified v = verify(body, headers, source, false);
        return new ClientList(clients.enumeration(v.account.id()));
    }

    private record Verified(AccountService.Signer account, JsonNode json, String certSha256) {
    }

    /**
     * Whether the body is UTF-16 or UTF-32, which Jackson would otherwise detect and read: by its byte-order mark, or
     * by a zero byte among its first four (JSON text starts with an ASCII character, which those encodings pad with
     * zeros). A UTF-8 byte-order mark is accepted, as before.
     */
    private static boolean notUtf8(byte[] body) {
        if (body.length >= 2 && ((body[0] == (byte) 0xFE && body[1] == (byte) 0xFF)
                || (body[0] == (byte) 0xFF && body[1] == (byte) 0xFE))) {
            return true;
        }
        for (int i = 0; i < Math.min(4, body.length); i++) {
            if (body[i] == 0) {
                return true;
            }
        }
        return false;
    }

    /** The one refusal for an unknown FQDN and for a known one without a valid signature (README, Errors). */
    static final String NOT_AUTHENTICATED = "NOT_AUTHENTICATED";
    /** The verifier's codes that an unauthenticated request may see: they depend on the request alone. */
    private static final Set<FailureCode> SAID = EnumSet.of(FailureCode.CERT_HEADERS, FailureCode.CERT_URL_MALFORMED,
            FailureCode.CERT_URL_SCHEME, FailureCode.CERT_URL_HOST, FailureCode.CERT_URL_PATH,
            FailureCode.CERT_URL_PORT, FailureCode.TIMESTAMP_MALFORMED, FailureCode.TIMESTAMP_OUT_OF_WINDOW);

    private Verified verify(byte[] in, Headers h, String source, boolean needsClient) {
        limits.checkSource(source);
        try {
            return verifyFrom(in, h, source, needsClient);
        } catch (Refused e) {
            limits.failed(source);
            throw e.exception;
        }
    }

    /** A refusal before the request verified: spent from the source's refusal budget. */
    private static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient ApiException exception;

        Refused(ApiException exception) {
            super(null, null, false, false);
            this.exception = exception;
        }
    }

    private Verified verifyFrom(byte[] in, Headers h, String source, boolean needsClient) {
        if (h.contentType() == null || !h.contentType().toLowerCase(Locale.ROOT).startsWith("application/json")) {
            throw new Refused(refuse(415, "UNSUPPORTED_MEDIA_TYPE", "Send the body as Content-Type: application/json"));
        }
        byte[] body = in == null ? new byte[0] : in;
        if (body.length > MAX_BODY) {
            throw new Refused(new ApiException(413, "BODY_TOO_LARGE",
                    "The body is larger than " + MAX_BODY + " bytes; management requests are small JSON objects"));
        }
        if (notUtf8(body)) {
            throw new Refused(refuse(400, "MALFORMED_JSON", "The body must be JSON in UTF-8 (spec 5.1); this one is"
                    + " UTF-16 or UTF-32"));
        }
        JsonNode json;
        try {
            json = STRICT.readTree(body);
        } catch (JsonProcessingException e) {
            throw new Refused(refuse(400, "MALFORMED_JSON", "The body is not one valid JSON object (duplicate keys and"
                    + " data after it are refused too): " + e.getOriginalMessage()));
        } catch (IOException e) {
            throw new Refused(refuse(400, "MALFORMED_JSON", "The body is not valid JSON"));
        }
        if (json == null || !json.isObject()) {
            throw new Refused(refuse(400, "MALFORMED_JSON", "The body must be one JSON object"));
        }
        for (String field : needsClient ? List.of("client_id", "fqdn", "timestamp") : List.of("fqdn", "timestamp")) {
            if (!json.hasNonNull(field) || !json.get(field).isTextual() || json.get(field).asText().isEmpty()) {
                throw new Refused(refuse(400, "MISSING_FIELD", "The body needs the string field '" + field + "'"));
            }
        }
        String fqdn = json.get("fqdn").asText();
        Optional<AccountService.Signer> known = accounts.byFqdn(fqdn);
        String name = known.map(AccountService.Signer::fqdn).orElse(fqdn.toLowerCase(Locale.ROOT));
        var request = new ManagementRequestVerifier.Request(body, name, json.get("timestamp").asText(), h.signature(),
                h.certChainUrl(), h.certUuid(), h.signature256());
        if (known.isEmpty()) {
            throw new Refused(unknownAccount(request));
        }
        AccountService.Signer account = known.get();
        Timer.Sample verification = Timer.start(metrics);
        ManagementRequestVerifier.Verified verified;
        try {
            verified = verifier.verify(request, uuid -> certificates.activeCertificate(account.id(), uuid));
        } catch (VerificationException e) {
            verification.stop(verificationTimer);
            throw new Refused(refusal(e));
        }
        verification.stop(verificationTimer); // not when it must run again on a worker (Workers.inMemoryOrOnWorker)
        // Authentic from here on: the account's policies, blocks and budget may be told.
        blocks.check(verified.chain());
        limits.verified(name, verified.certificateSource()); // a chain URL that verified: known-good from now on
        if (!verified.sha256() && accounts.requiresSha256(account.id())) {
            throw refuse(400, "SIGNATURE_256_REQUIRED", "The account of " + account.fqdn() + " requires SHA-256"
                    + " signatures: send " + ManagementHeaders.SIGNATURE_256 + " (SHA256withRSA or SHA256withECDSA over"
                    + " the exact body bytes, Base64), with or without " + ManagementHeaders.SIGNATURE);
        }
        limits.checkAccount(account.fqdn());
        if (accounts.accountDisabled(account.id())) {
            throw refuse(403, "ACCOUNT_DISABLED", "The account of " + account.fqdn() + " is disabled by the platform"
                    + " operator: it gets no token or client list, and its tokens are refused; ask the operator");
        }
        if (Workers.firstInRequest("management.signed.accepted")) { // once, should the client be read on a worker
            (verified.sha256() ? (verified.algorithms().size() == 2 ? acceptedBoth : acceptedSha256) : acceptedSha1)
                    .increment();
        }
        return new Verified(account, json, Fingerprints.sha256(verified.chain().leaf()));
    }

    /**
     * An unknown FQDN gets what a known one without a valid signature gets: the checks of the request alone (the
     * certificate headers, the chain URL's form, the download budget of its FQDN), then NOT_AUTHENTICATED. Nothing is
     * downloaded for it.
     */
    private ApiException unknownAccount(ManagementRequestVerifier.Request request) {
        boolean hasUrl = request.certChainUrl() != null && !request.certChainUrl().isEmpty();
        boolean hasUuid = request.certUuid() != null && !request.certUuid().isEmpty();
        try {
            if (hasUrl == hasUuid) {
                verifier.verify(request, uuid -> Optional.empty()); // refuses CERT_HEADERS before any other work
            }
            if (hasUrl) {
                limits.checkUnknownDownload(request.fqdn(), new ManagementCertUrlRule(request.fqdn())
                        .check(request.certChainUrl()));
            }
        } catch (VerificationException e) {
            return refusal(e);
        }
        return notAuthenticated("UNKNOWN_ACCOUNT");
    }

    private ApiException refusal(VerificationException e) {
        // a busy certificate host is not the request's fault: the same request may succeed later
        if (e.code() == FailureCode.CERT_FETCH_BUSY) {
            return refuse(503, e.code().name(), e.getMessage(), BUSY_RETRY_AFTER_SECONDS);
        }
        if (SAID.contains(e.code())) {
            return refuse(400, e.code().name(), e.getMessage());
        }
        return notAuthenticated(e.code().name());
    }

    /** The reason stays here (log and metric), where the operator can tell it by the request id. */
    private ApiException notAuthenticated(String reason) {
        metrics.counter("management.signed.unauthenticated", "reason", reason).increment();
        LOG.infof("Signed request not authenticated: %s", reason);
        return refuse(400, NOT_AUTHENTICATED, "The request could not be authenticated: no account has the body's"
                + " fqdn, or the request carries no valid"
                + " signature (Signature and/or Signature-256) by a certificate of the account (the chain could not be downloaded or validated, the"
                + " certificate is unknown, revoked, expired or not for this FQDN, or a signature does not verify over"
                + " the exact body bytes). Which one is not said, so that nobody can learn whether an FQDN is a"
                + " customer's: check your chain and signature with platform-cli (check-chain, sign, request), or give"
                + " the platform operator the X-Request-Id of this answer");
    }

    private ApiException refuse(int status, String code, String message) {
        return refuse(status, code, message, 0);
    }

    private ApiException refuse(int status, String code, String message, int retryAfterSeconds) {
        metrics.counter("management.signed.rejections", "code", code).increment();
        return new ApiException(status, code, message, retryAfterSeconds);
    }
}
