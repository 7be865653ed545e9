package com.convplatform.hook.delivery;

import java.net.InetAddress;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;
import org.jboss.logging.MDC;

import com.convplatform.crypto.hook.HookHeaders;
import com.convplatform.crypto.hook.HookSigner;
import com.convplatform.crypto.time.TimestampWindow;
import com.convplatform.hook.config.HookConfig;
import com.convplatform.hook.signing.SigningIdentity;
import com.convplatform.support.GroupCommit;
import com.convplatform.support.RequestIds;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.runtime.configuration.DurationConverter;
import io.vertx.core.Vertx;

/**
 * Delivers due hooks: claims them, signs each attempt at send time (so {@code signature_timestamp} is fresh on every
 * retry), POSTs with redirects never followed, and records the outcome.
 *
 * <p>
 * One dispatcher thread claims due deliveries while this replica has room ({@code hook.delivery.max-in-flight}) and
 * hands each to its endpoint's lane, which runs at most {@code hook.delivery.per-endpoint} at once and queues the rest
 * locally. The dispatcher sleeps when the queue is empty and wakes at once when this replica takes in an event or
 * finishes a delivery, or after {@code hook.delivery.poll-interval} (events taken in by other replicas, retries
 * falling due).
 */
@ApplicationScoped
public class DeliveryWorker {
    private static final Logger LOG = Logger.getLogger(DeliveryWorker.class);
    static final String DELIVERY_ID_HEADER = "X-Hook-Delivery-Id";
    static final String ATTEMPT_HEADER = "X-Hook-Attempt";
    /** A delivery is sent only if its lease outlasts the attempt by this much; otherwise it is given back. */
    private static final Duration LEASE_MARGIN = Duration.ofSeconds(5);

    /** The deliveries of one endpoint held by this replica. Guarded by itself. */
    private static final class Lane {
        final ArrayDeque<DeliveryStore.Claimed> waiting = new ArrayDeque<>();
        int running;
        boolean retired;
    }

    private final DeliveryStore store;
    private final AccountDirectory accounts;
    private final SigningIdentity identity;
    private final HookConfig config;
    private final Clock clock;
    private final ObjectMapper json;
    private final HookPoster poster;
    private final ExecutorService pool;
    private final Map<String, Lane> lanes = new ConcurrentHashMap<>();
    private final AtomicInteger held = new AtomicInteger();
    private final Semaphore signal = new Semaphore(0);
    private final Duration pollInterval;
    private final GroupCommit<DeliveryStore.Recorded, Void> recorder;
    private volatile boolean running;
    private Thread dispatcher;

    public DeliveryWorker(DeliveryStore store, AccountDirectory accounts, SigningIdentity identity, HookConfig config,
            Clock clock, ObjectMapper json, MeterRegistry metrics, Vertx vertx) {
        this.store = store;
        this.accounts = accounts;
        this.identity = identity;
        this.config = config;
        this.clock = clock;
        this.json = json;
        HookConfig.Delivery d = config.delivery();
        this.poster = new HookPoster(vertx, DeliverySeams.resolver(d.resolve()), d.allowPrivateNetworks(),
                d.connectTimeout(), d.readTimeout(), DeliverySeams.trust(d.trustStore()), d.perEndpoint());
        this.pool = Executors.newFixedThreadPool(config.delivery().maxInFlight(), r -> {
            Thread t = new Thread(r, "hook-delivery");
            t.setDaemon(true);
            return t;
        });
        this.pollInterval = DurationConverter.parseDuration(config.delivery().pollInterval());
        this.recorder = GroupCommit.ofWrites("hook-outcome-recorder", config.delivery().maxInFlight(),
                store::recordAll);
        Gauge.builder("hook.queue.depth", store, DeliveryStore::pendingCount)
                .description("Deliveries waiting to be delivered").register(metrics);
        Gauge.builder("hook.deliveries.held", held, AtomicInteger::get)
                .description("Deliveries this replica holds (in flight or waiting for their endpoint)")
                .register(metrics);
    }

    void start(@Observes StartupEvent event) {
        running = true;
        dispatcher = new Thread(this::dispatch, "hook-dispatcher");
        dispatcher.setDaemon(true);
        dispatcher.start();
    }

    @PreDestroy
    void stop() {
        running = false;
        if (dispatcher != null) {
            dispatcher.interrupt();
        }
        pool.shutdownNow();
        recorder.close();
        poster.close();
    }

    /** Asks the dispatcher to look for due deliveries now (after an intake, or when room frees up). */
    public void wake() {
        if (signal.availablePermits() == 0) {
            signal.release();
        }
    }

    private void dispatch() {
        while (running) {
            boolean full = false;
            try {
                int holding = held.get();
                int room = config.delivery().maxInFlight() - holding;
                int want = Math.min(config.delivery().batchSize(), room);
                // While deliveries are held, claim only once room for half a batch is free: one claim per finished
                // delivery would cost a transaction for each.
                if (want > 0 && (holding == 0 || 2 * want >= minimumClaim())) {
                    List<DeliveryStore.Claimed> claimed = store.claimDue(want);
                    claimed.forEach(this::submit);
                    full = claimed.size() == want;
                }
            } catch (RuntimeException e) {
                LOG.warnf(e, "Claiming due deliveries failed; trying again in %s", pollInterval);
            }
            if (full) {
                continue; // more may be due: claim again at once (while there is room)
            }
            try {
                signal.tryAcquire(pollInterval.toMillis(), TimeUnit.MILLISECONDS);
                signal.drainPermits();
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private int minimumClaim() {
        return Math.min(config.delivery().batchSize(), config.delivery().maxInFlight());
    }

    private void submit(DeliveryStore.Claimed c) {
        held.incrementAndGet();
        while (true) {
            Lane lane = lanes.computeIfAbsent(c.accountId(), k -> new Lane());
            synchronized (lane) {
                if (lane.retired) {
                    continue;
                }
                if (lane.running >= config.delivery().perEndpoint()) {
                    lane.waiting.add(c);
                    return;
                }
                lane.running++;
            }
            pool.execute(() -> drain(lane, c));
            return;
        }
    }

    /** Runs one delivery, then the endpoint's queued ones, while this thread holds one of the lane's slots. */
    private void drain(Lane lane, DeliveryStore.Claimed first) {
        DeliveryStore.Claimed c = first;
        while (c != null) {
            try {
                Instant mustEndBy = clock.instant().plus(config.delivery().connectTimeout())
                        .plus(config.delivery().readTimeout()).plus(LEASE_MARGIN);
                if (mustEndBy.isBefore(c.leaseUntil())) {
                    deliver(c);
                } else {
                    store.release(c);
                }
            } catch (RuntimeException e) {
                LOG.errorf(e, "Delivery %s failed unexpectedly; its lease will expire and it will be retried", c.id());
            } finally {
                held.decrementAndGet();
            }
            synchronized (lane) {
                c = lane.waiting.poll();
                if (c == null) {
                    lane.running--;
                    if (lane.running == 0) {
                        lane.retired = true;
                        lanes.remove(first.accountId(), lane);
                    }
                }
            }
        }
        wake();
    }

    void deliver(DeliveryStore.Claimed c) {
        if (c.requestId() != null) {
            MDC.put(RequestIds.MDC_KEY, c.requestId());
        }
        try {
            attempt(c);
        } finally {
            MDC.remove(RequestIds.MDC_KEY);
        }
    }

    private void attempt(DeliveryStore.Claimed c) {
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
        URI target;
        InetAddress[] addresses;
        try {
            target = URI.create(webhook.get());
            addresses = poster.addresses(target); // resolved and checked once; the hook goes to one of exactly these
        } catch (IllegalArgumentException e) {
            record(c, Outcome.endpointFailed("the webhook URL is not a URL: " + e.getMessage(), elapsed(start)));
            return;
        } catch (HookPoster.NotSent e) {
            record(c, Outcome.endpointFailed(e.getMessage(), elapsed(start)));
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
        Map<String, String> headers = Map.of("Content-Type", "application/json", HookHeaders.SIGNATURE,
                signed.signature(), HookHeaders.CERTIFICATE_URL, signed.certificateUrl(), DELIVERY_ID_HEADER, c.id(),
                ATTEMPT_HEADER, String.valueOf(c.attempt()));
        try {
            HookPoster.Answer a = poster.post(target, addresses, headers, body);
            record(c, Outcome.answered(a.status(), elapsed(start), a.retryAfter()));
        } catch (TimeoutException e) {
            record(c, Outcome.endpointFailed("timed out after " + config.delivery().readTimeout().toMillis() + " ms",
                    elapsed(start)));
        } catch (java.io.IOException e) {
            record(c, Outcome.endpointFailed("connection failed: " + e.getMessage(), elapsed(start)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Records an outcome, with those of the deliveries that end meanwhile, in one transaction (group commit); once
     * more if that fails (the only expected cause is two replicas creating the same endpoint's failure row at once);
     * should both fail, the lease expires and the delivery is attempted again.
     */
    private void record(DeliveryStore.Claimed c, Outcome o) {
        DeliveryStore.Recorded r = new DeliveryStore.Recorded(c, o);
        try {
            recorder.submit(r);
        } catch (RuntimeException first) {
            LOG.debugf(first, "Recording attempt %d of %s failed once; trying again", c.attempt(), c.id());
            recorder.submit(r);
        }
    }

    private static long elapsed(long start) {
        return (System.nanoTime() - start) / 1_000_000;
    }
}
