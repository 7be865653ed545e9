package com.convplatform.hook.delivery;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeoutException;

import jakarta.enterprise.context.Dependent;

import com.convplatform.crypto.hook.HookHeaders;
import com.convplatform.crypto.time.TimestampWindow;
import com.convplatform.hook.config.HookConfig;
import com.convplatform.hook.delivery.DeliveryStore.Outcome;
import com.convplatform.hook.signing.SigningIdentity;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One attempt of a claimed delivery: the account's webhook looked up, the body signed at send time, the POST, and
 * what came of it as an {@link Outcome}. Dependent on the worker, so its {@link HookPoster} closes after the drain.
 */
@Dependent
public class DeliveryAttempt {
    /** A delivery is sent only if its lease outlasts the attempt by this much. */
    public static final Duration LEASE_MARGIN = Duration.ofSeconds(5);

    private final AccountDirectory accounts;
    private final SigningIdentity identity;
    private final HookConfig config;
    private final Clock clock;
    private final ObjectMapper json;
    private final HookPoster poster;

    DeliveryAttempt(AccountDirectory accounts, SigningIdentity identity, HookConfig config, Clock clock,
            ObjectMapper json, HookPoster poster) {
        this.accounts = accounts;
        this.identity = identity;
        this.config = config;
        this.clock = clock;
        this.json = json;
        this.poster = poster;
    }

    /** The name's lookup (connect-timeout), then one deadline over its addresses. */
    public static Duration longestAttempt(Duration connect, Duration read) {
        return connect.multipliedBy(2).plus(read);
    }

    boolean leaseCoversTheSend(DeliveryStore.Claimed c) {
        return clock.instant().plus(longestAttempt(config.delivery().connectTimeout(), config.delivery().readTimeout()))
                .plus(LEASE_MARGIN).isBefore(c.leaseUntil());
    }

    /** One attempt; null when interrupted (drain() hands its lease back). Fills in the signature headers it sends. */
    Outcome run(DeliveryStore.Claimed c, Map<String, String> signatureHeaders) {
        Optional<String> webhook;
        long lookupStart = System.nanoTime();
        try {
            webhook = accounts.webhookUrl(c.accountId());
        } catch (RuntimeException e) {
            // management-service unreachable or failing, or the breaker open: the platform's trouble, retried later
            return DeliveryTracing.failed("account_lookup_failed",
                    Outcome.platformFailed("account lookup failed: " + e.getMessage()));
        }
        ObjectNode payload = payload(json, c.payload());
        if (webhook.isEmpty()) {
            return DeliveryTracing.failed("unknown_account",
                    Outcome.permanent("account " + c.accountId() + " does not exist (dead-lettered)"));
        } else if (payload == null) {
            return DeliveryTracing.failed("unreadable_payload",
                    Outcome.permanent("stored payload unreadable: not a JSON object"));
        } else if (!leaseCoversTheSend(c)) {
            // A slow lookup ate the lease: sending now could outlast it, and another replica would send it again.
            return DeliveryTracing.failed("account_lookup_slow", Outcome.platformFailed("the account lookup took "
                    + (System.nanoTime() - lookupStart) / 1_000_000 + " ms, which left too little of the lease ("
                    + config.delivery().lease() + ") to send within the attempt's deadline; not sent, retried later"));
        }
        try {
            URI target = URI.create(webhook.get());
            InetAddress[] addresses = poster.addresses(target); // resolved and checked once; sent to one of these
            byte[] body = body(json, payload, TimestampWindow.now(clock)); // stamped as it is signed (spec 2.2)
            var signed = identity.signer().sign(body);
            signatureHeaders.put(HookHeaders.SIGNATURE, signed.signature());
            signatureHeaders.put(HookHeaders.CERTIFICATE_URL, signed.certificateUrl());
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put("Content-Type", "application/json");
            headers.putAll(signatureHeaders);
            headers.put("X-Hook-Delivery-Id", c.id());
            headers.put("X-Hook-Attempt", String.valueOf(c.attempt()));
            return poster.post(target, addresses, headers, body);
        } catch (IllegalArgumentException e) {
            return DeliveryTracing.failed("invalid_webhook_url",
                    Outcome.endpointFailed("the webhook URL is not a URL: " + e.getMessage()));
        } catch (HookPoster.NotSent e) {
            return DeliveryTracing.failed("not_sent", Outcome.endpointFailed(e.getMessage()));
        } catch (TimeoutException e) {
            HookConfig.Delivery d = config.delivery();
            return DeliveryTracing.failed("timeout", Outcome.endpointFailed("timed out: no answer within the read"
                    + " time-out (" + d.readTimeout().toMillis() + " ms) or the attempt's deadline ("
                    + d.connectTimeout().plus(d.readTimeout()).toMillis() + " ms over every address)"));
        } catch (IOException e) {
            return DeliveryTracing.failed("connection_failed",
                    Outcome.endpointFailed("connection failed: " + e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** The stored payload as a JSON object; null if it is not one. */
    static ObjectNode payload(ObjectMapper json, String payload) {
        try {
            return json.readValue(payload, ObjectNode.class);
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    /** The bytes signed and sent: the payload with {@code signature_timestamp} last. */
    static byte[] body(ObjectMapper json, ObjectNode payload, String timestamp) {
        payload.put(HookHeaders.SIGNATURE_TIMESTAMP_FIELD, timestamp);
        try {
            return json.writeValueAsBytes(payload);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("A JSON object could not be written", e);
        }
    }
}
