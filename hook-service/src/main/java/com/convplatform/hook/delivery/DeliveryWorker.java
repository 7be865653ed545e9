package com.convplatform.hook.delivery;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import com.convplatform.crypto.hook.HookHeaders;
import com.convplatform.crypto.hook.HookSigner;
import com.convplatform.crypto.time.TimestampWindow;
import com.convplatform.hook.config.HookConfig;
import com.convplatform.hook.signing.SigningIdentity;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduled;

/**
 * Delivers due hooks: claims them, signs each attempt at send time (so {@code signature_timestamp} is fresh on every
 * retry), POSTs with redirects never followed, and records the outcome. At most {@value #PER_ENDPOINT} deliveries run
 * at once per account endpoint.
 */
@ApplicationScoped
public class DeliveryWorker {
    private static final Logger LOG = Logger.getLogger(DeliveryWorker.class);
    static final int PER_ENDPOINT = 4;
    static final String DELIVERY_ID_HEADER = "X-Hook-Delivery-Id";
    static final String ATTEMPT_HEADER = "X-Hook-Attempt";

    private final DeliveryStore store;
    private final AccountDirectory accounts;
    private final SigningIdentity identity;
    private final HookConfig config;
    private final Clock clock;
    private final ObjectMapper json;
    private final HttpClient http;
    private final ExecutorService pool = Executors.newFixedThreadPool(16);
    private final Map<String, Semaphore> perEndpoint = new ConcurrentHashMap<>();

    public DeliveryWorker(DeliveryStore store, AccountDirectory accounts, SigningIdentity identity, HookConfig config,
            Clock clock, ObjectMapper json, MeterRegistry metrics) {
        this.store = store;
        this.accounts = accounts;
        this.identity = identity;
        this.config = config;
        this.clock = clock;
        this.json = json;
        this.http = HttpClient.newBuilder().connectTimeout(config.delivery().connectTimeout())
                .followRedirects(HttpClient.Redirect.NEVER).build();
        Gauge.builder("hook.queue.depth", store, DeliveryStore::pendingCount)
                .description("Deliveries waiting to be delivered").register(metrics);
    }

    @PreDestroy
    void stop() {
        pool.shutdownNow();
    }

    @Scheduled(every = "${hook.delivery.poll-interval}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void poll() {
        List<DeliveryStore.Claimed> claimed = store.claimDue(config.delivery().batchSize());
        for (DeliveryStore.Claimed c : claimed) {
            Semaphore s = perEndpoint.computeIfAbsent(c.accountId(), k -> new Semaphore(PER_ENDPOINT));
            if (!s.tryAcquire()) {
                store.release(c.id());
                continue;
            }
            pool.submit(() -> {
                try {
                    deliver(c);
                } catch (RuntimeException e) {
                    LOG.errorf(e, "Delivery %s failed unexpectedly; its lease will expire and it will be retried",
                            c.id());
                } finally {
                    s.release();
                }
            });
        }
    }

    void deliver(DeliveryStore.Claimed c) {
        long start = System.nanoTime();
        Optional<String> webhook;
        try {
            webhook = accounts.webhookUrl(c.accountId());
        } catch (AccountDirectory.Unavailable e) {
            record(c, Outcome.platformFailed("account lookup failed: " + e.getMessage(), elapsed(start)));
            return;
        }
        if (webhook.isEmpty()) {
            record(c,
                    Outcome.permanent("account " + c.accountId() + " does not exist (dead-lettered)", elapsed(start)));
            return;
        }
        URI target = URI.create(webhook.get());
        String blocked = guard(target);
        if (blocked != null) {
            record(c, Outcome.endpointFailed(blocked, elapsed(start)));
            return;
        }
        byte[] body;
        try {
            ObjectNode node = (ObjectNode) json.readTree(c.payload());
            node.put(HookHeaders.SIGNATURE_TIMESTAMP_FIELD, TimestampWindow.now(clock));
            body = json.writeValueAsBytes(node);
        } catch (java.io.IOException e) {
            record(c, Outcome.permanent("stored payload unreadable: " + e.getMessage(), elapsed(start)));
            return;
        }
        HookSigner.SignedHeaders signed = identity.current().signer().sign(body);
        HttpRequest req = HttpRequest.newBuilder(target).timeout(config.delivery().readTimeout())
                .header("Content-Type", "application/json").header(HookHeaders.SIGNATURE, signed.signature())
                .header(HookHeaders.CERTIFICATE_URL, signed.certificateUrl()).header(DELIVERY_ID_HEADER, c.id())
                .header(ATTEMPT_HEADER, String.valueOf(c.attempt()))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
        try {
            HttpResponse<Void> r = http.send(req, HttpResponse.BodyHandlers.discarding());
            record(c, Outcome.answered(r.statusCode(), elapsed(start), retryAfter(r)));
        } catch (HttpTimeoutException e) {
            record(c, Outcome.endpointFailed("timed out after " + config.delivery().readTimeout().toMillis() + " ms",
                    elapsed(start)));
        } catch (java.io.IOException e) {
            record(c, Outcome.endpointFailed("connection failed: " + e, elapsed(start)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Records an outcome, once more if the first commit fails (the only expected cause is two replicas creating the
     * same endpoint's failure row at once); should both fail, the lease expires and the delivery is attempted again.
     */
    private void record(DeliveryStore.Claimed c, Outcome o) {
        try {
            store.record(c, o);
        } catch (RuntimeException first) {
            LOG.debugf(first, "Recording attempt %d of %s failed once; trying again", c.attempt(), c.id());
            store.record(c, o);
        }
    }

    private String guard(URI target) {
        String scheme = target.getScheme() == null ? "" : target.getScheme().toLowerCase(java.util.Locale.ROOT);
        if (!scheme.equals("https") && !scheme.equals("http") || target.getHost() == null) {
            return "the webhook URL " + target + " is not an absolute http(s) URL";
        }
        if (config.delivery().allowPrivateNetworks()) {
            return null;
        }
        try {
            for (InetAddress a : InetAddress.getAllByName(target.getHost())) {
                String why = AddressGuard.refusal(a);
                if (why != null) {
                    return "refused by the SSRF guard: " + target.getHost() + " resolves to " + a.getHostAddress()
                            + ", " + why;
                }
            }
            return null;
        } catch (UnknownHostException e) {
            return "the webhook host " + target.getHost() + " does not resolve";
        }
    }

    private static Duration retryAfter(HttpResponse<?> r) {
        return r.headers().firstValue("Retry-After").map(v -> {
            try {
                return Duration.ofSeconds(Math.max(0, Long.parseLong(v.trim())));
            } catch (NumberFormatException e) {
                return null;
            }
        }).orElse(null);
    }

    private static long elapsed(long start) {
        return (System.nanoTime() - start) / 1_000_000;
    }
}
