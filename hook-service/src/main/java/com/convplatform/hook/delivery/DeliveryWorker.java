package com.convplatform.hook.delivery;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;
import org.jboss.logging.MDC;

import com.convplatform.hook.config.HookConfig;
import com.convplatform.hook.delivery.DeliveryStore.Outcome;
import com.convplatform.support.GroupCommit;
import com.convplatform.support.RepeatedFailures;
import com.convplatform.support.RequestIds;
import com.convplatform.support.WarningPace;

import io.opentelemetry.api.trace.Span;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;

/**
 * Delivers due hooks. One dispatcher thread claims every delivery (one path, whatever the number of intake callers:
 * README, Delivery); each has a sender thread, waiting its endpoint's turn in order, that makes one
 * {@link DeliveryAttempt} and hands its outcome to the recorder. On shutdown it drains and hands the leases back.
 */
@ApplicationScoped
public class DeliveryWorker {
    private static final Logger LOG = Logger.getLogger(DeliveryWorker.class);
    /** After the grace, how long attempts that were cut off get to notice it before the leases are handed back. */
    private static final Duration CUT_OFF_WAIT = Duration.ofSeconds(2);

    private final DeliveryStore store;
    private final DeliveryAttempt attempt;
    private final DeliveryMeters meters;
    private final HookConfig config;
    private final DeliveryTracing tracing;
    private final RetrySchedule schedule;
    private final ExecutorService senders;
    /** Per account: its {@code per-endpoint} turns to send, handed out in order (fair). */
    private final Map<String, Semaphore> endpoints = new ConcurrentHashMap<>();
    private final AtomicInteger held;
    /** The ids of the deliveries this replica holds under its leases, handed back at once on shutdown. */
    private final Set<String> holding = ConcurrentHashMap.newKeySet();
    private final Semaphore signal = new Semaphore(0);
    /** The database may hold due deliveries that this replica could claim now. */
    private volatile boolean backlog = true;
    /** Events arrived (an intake here woke the dispatcher): worth waiting claim-delay for more before claiming. */
    private volatile boolean arrived;
    private final GroupCommit<DeliveryStore.Recorded, Void> recorder;
    private volatile boolean running;
    /** Set by drain() when the grace has ended: attempts still running are cut off, their outcomes dropped. */
    private volatile boolean cutOff;
    private Thread dispatcher;
    private final AtomicInteger finishedWhileStopping = new AtomicInteger();
    private final AtomicLong unattemptedSinceWarning = new AtomicLong();
    private final WarningPace unattemptedWarnings = new WarningPace(Duration.ofMinutes(1));
    /** A claim that fails is tried again every poll interval: its warning comes at most once a minute. */
    private final RepeatedFailures claimFailures;
    private Drained drained;

    DeliveryWorker(DeliveryStore store, DeliveryAttempt attempt, DeliveryMeters meters, HookConfig config,
            DeliveryTracing tracing, RetrySchedule schedule) {
        this.store = store;
        this.attempt = attempt;
        this.meters = meters;
        this.held = meters.held();
        this.claimFailures = new RepeatedFailures(LOG, "Claiming due deliveries", meters.claimFailures());
        this.config = config;
        this.tracing = tracing;
        this.schedule = schedule;
        HookConfig.Delivery d = config.delivery();
        this.senders = Executors.newFixedThreadPool(d.maxInFlight(), r -> daemon(r, "hook-delivery"));
        this.recorder = GroupCommit.ofWrites("hook-outcome-recorder", d.maxInFlight(), store::recordAll);
    }

    void start(@Observes StartupEvent event) {
        running = true;
        dispatcher = daemon(this::dispatch, "hook-dispatcher");
        dispatcher.start();
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true); // should stop() not run, nothing here keeps the JVM alive
        return t;
    }

    public record Drained(int held, int finished, int released) {
    }

    /** On SIGTERM, once the HTTP requests have ended ({@code quarkus.shutdown.timeout}). */
    void onShutdown(@Observes ShutdownEvent event) {
        drain(config.delivery().shutdownGrace());
    }

    /**
     * Hands back every lease still held in one UPDATE after the grace, so other replicas need not wait for them; one
     * cut off mid-attempt may have reached its receiver and is sent again, with the same delivery id.
     */
    public synchronized Drained drain(Duration grace) {
        if (drained != null) {
            return drained;
        }
        long deadline = System.nanoTime() + grace.toNanos();
        running = false;
        int holdingNow = held.get();
        try {
            if (dispatcher != null) {
                signal.release(); // wakes it from its wait; a claim under way ends (its rows go back below)
                dispatcher.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            }
            senders.shutdown();
            if (!senders.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                cutOff = true; // before the interrupts: an attempt ending now is not recorded
                senders.shutdownNow(); // attempts still running end without an outcome; their leases go back below
                senders.awaitTermination(CUT_OFF_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            senders.shutdownNow();
            Thread.currentThread().interrupt();
        }
        recorder.close(); // outcomes still queued are written before the leases go back
        int released = 0;
        try {
            released = store.releaseHeld(List.copyOf(holding));
        } catch (RuntimeException e) {
            LOG.errorf(e, "Handing back the leases of this replica failed; its deliveries are taken again once their"
                    + " leases (hook.delivery.lease, %s) run out", config.delivery().lease());
        }
        meters.releasedOnShutdown(released);
        drained = new Drained(holdingNow, finishedWhileStopping.get(), released);
        LOG.infof("Delivery stopped: %d deliveries were held; %d attempts ended within hook.delivery.shutdown-grace"
                + " (%s)%s; %d leases handed back, due now for the other replicas", holdingNow, drained.finished(),
                grace, cutOff ? ", the others were cut off" : "", released);
        return drained;
    }

    /** Hands back what is held first if no shutdown event did (a container stopped early). */
    @PreDestroy
    void stop() {
        if (running) {
            drain(config.delivery().shutdownGrace());
        } else {
            senders.shutdownNow(); // never started, or drained already (then this does nothing)
            recorder.close();
        }
    }

    /** The database may hold due deliveries this replica has not taken: claim as soon as there is room. */
    public void wake() {
        backlog = true;
        arrived = true;
        signal.release();
    }

    private void dispatch() {
        HookConfig.Delivery d = config.delivery();
        int batch = Math.min(d.batchSize(), d.maxInFlight());
        while (running) {
            boolean full = false;
            int inHand = held.get();
            int want = Math.min(batch, d.maxInFlight() - inHand);
            // While deliveries are held, claim only once room for half a batch is free: one claim per finished
            // delivery would cost a transaction for each.
            if (want > 0 && (inHand == 0 || 2 * want >= batch)) {
                // Cleared before the claim: a wake() while it runs (rows committed too late for it) sets it again.
                backlog = false;
                arrived = false;
                try {
                    List<DeliveryStore.Claimed> claimed = store.claimDue(want);
                    held.addAndGet(claimed.size());
                    meters.claimed(claimed.size());
                    claimed.forEach(c -> holding.add(c.id()));
                    claimed.forEach(c -> senders.execute(() -> send(c)));
                    full = claimed.size() == want;
                    backlog |= full;
                    claimFailures.succeeded();
                } catch (RuntimeException e) {
                    backlog = true;
                    claimFailures.failed(e, "no hook is sent until a claim works, tried every " + d.pollInterval());
                }
            }
            try {
                if (!full) { // when full, more may be due: claim again at once (while there is room)
                    signal.tryAcquire(d.pollInterval().toMillis(), TimeUnit.MILLISECONDS);
                    if (arrived && running && !d.claimDelay().isZero()) {
                        TimeUnit.NANOSECONDS.sleep(d.claimDelay().toNanos()); // arrivals meanwhile share the claim
                    }
                    signal.drainPermits();
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Sends once it is the endpoint's turn; gives it back if stopping, or if the lease would end first. */
    private void send(DeliveryStore.Claimed c) {
        if (c.requestId() != null) {
            MDC.put(RequestIds.MDC_KEY, c.requestId()); // logged, and passed on with the account lookup
        }
        Semaphore turns = endpoints.computeIfAbsent(c.accountId(),
                k -> new Semaphore(config.delivery().perEndpoint(), true));
        boolean settled = false; // recorded or handed back: no longer this replica's to hand back on shutdown
        try {
            turns.acquire();
            try {
                if (running && attempt.leaseCoversTheSend(c)) {
                    long start = System.nanoTime();
                    tracing.queued(c, c.leaseUntil().minus(config.delivery().lease()));
                    Span span = tracing.attempt(c);
                    Outcome o = null;
                    Map<String, String> signatureHeaders = new LinkedHashMap<>();
                    try (var ignored = span.makeCurrent()) { // its logs and the account lookup carry the trace
                        o = attempt.run(c, signatureHeaders);
                        if (o != null) {
                            LOG.debugf("Delivery %s attempt %d: %s", c.id(), c.attempt(),
                                    o.delivered() ? "delivered (" + o.statusCode() + ")" : o.error());
                        }
                    } finally {
                        DeliveryTracing.end(span, o, o == null ? null : schedule.status(c, o));
                    }
                    if (o != null && !cutOff) {
                        record(new DeliveryStore.Recorded(c, o, (System.nanoTime() - start) / 1_000_000,
                                signatureHeaders));
                        settled = true;
                        if (!running) {
                            finishedWhileStopping.incrementAndGet();
                        }
                    }
                } else if (running) {
                    handBackUnattempted(c);
                    settled = true;
                } // else stopping: drain() hands it back with the others, in one UPDATE
            } finally {
                turns.release();
            }
        } catch (InterruptedException e) {
            if (running) {
                handBackUnattempted(c);
                settled = true;
            } // else cut off by drain(), which hands it back with the others
        } catch (RuntimeException e) {
            LOG.errorf(e, "Delivery %s failed unexpectedly; its lease will expire and it will be retried", c.id());
        } finally {
            MDC.remove(RequestIds.MDC_KEY);
            held.decrementAndGet();
            if (settled) {
                holding.remove(c.id());
            }
            if (backlog) {
                signal.release(); // room is free for due deliveries waiting in the database
            }
        }
    }

    /** Warns at most once a minute: a receiver slower than its share of the lease would otherwise never be sent to. */
    private void handBackUnattempted(DeliveryStore.Claimed c) {
        store.release(c);
        meters.unattempted();
        unattemptedSinceWarning.incrementAndGet();
        if (unattemptedWarnings.tryWarn()) {
            HookConfig.Delivery d = config.delivery();
            LOG.warnf("%d deliveries were claimed and handed back without an attempt (since the last such warning; at"
                    + " most one a minute, hook_deliveries_unattempted_total counts them all): each waited for its"
                    + " endpoint's turn (hook.delivery.per-endpoint %d) until less of its lease (hook.delivery.lease %s)"
                    + " was left than an attempt may take (%s) plus %d s. Likely cause: a slow receiver with more of its"
                    + " deliveries claimed than it takes within a lease (hook.delivery.batch-size %d, max-in-flight %d);"
                    + " if it goes on, its deliveries are never sent: lengthen hook.delivery.lease or shorten"
                    + " hook.delivery.read-timeout", unattemptedSinceWarning.getAndSet(0), d.perEndpoint(), d.lease(),
                    DeliveryAttempt.longestAttempt(d.connectTimeout(), d.readTimeout()),
                    DeliveryAttempt.LEASE_MARGIN.toSeconds(), d.batchSize(),
                    d.maxInFlight());
        }
    }

    /**
     * Hands the outcome to the recorder and returns at once: the sender and its endpoint's turn are free for the next
     * delivery while the outcome's transaction commits (waiting for each commit held both for its WAL flush, which
     * bounded deliveries to the turns over the flush time). A failed recording is tried once more; should that fail
     * too, the lease's end brings the delivery back.
     */
    private void record(DeliveryStore.Recorded r) {
        recorder.queue(r).whenComplete((done, first) -> {
            if (first != null) {
                LOG.debugf(first, "Recording attempt %d of %s failed once; trying again", r.claimed().attempt(),
                        r.claimed().id());
                // a recorder that stopped (the service is stopping) fails it again at once: "has stopped" in the warning
                recorder.queue(r).whenComplete((again, second) -> {
                    if (second != null) {
                        LOG.warnf("Recording attempt %d of %s failed (%s); the delivery is attempted again once its"
                                + " lease ends", r.claimed().attempt(), r.claimed().id(), second.toString());
                    }
                });
            }
        });
    }
}
