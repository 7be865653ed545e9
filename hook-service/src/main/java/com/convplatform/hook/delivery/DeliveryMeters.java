package com.convplatform.hook.delivery;

import java.util.concurrent.atomic.AtomicInteger;

import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduled;

/**
 * The delivery worker's meters: the queue as the database holds it, and what this replica holds and hands back. The
 * database's figures are sampled every 10 s in the background, never read at a scrape: with the database out of reach a
 * scrape would wait the pool's acquisition time-out once per gauge (5 s each, past Prometheus' 10 s scrape time-out),
 * and the outage would hide the counters that show it. A failed sample keeps the last figures.
 */
@Singleton
class DeliveryMeters {
    private static final Logger LOG = Logger.getLogger(DeliveryMeters.class);
    private final DeliveryQueries queries;
    private volatile double queued = Double.NaN;
    private volatile double disabled = Double.NaN;
    private final AtomicInteger held = new AtomicInteger();
    private final Counter releasedOnShutdown;
    private final Counter unattempted;
    private final Counter claimFailures;
    private final DistributionSummary claimed;

    DeliveryMeters(MeterRegistry metrics, DeliveryQueries queries) {
        this.queries = queries;
        Gauge.builder("hook.queue.depth", this, m -> m.queued)
                .description("Deliveries waiting to be delivered (sampled every 10 s)").register(metrics);
        Gauge.builder("hook.endpoints.disabled", this, m -> m.disabled)
                .description("Account endpoints currently disabled (sampled every 10 s)").register(metrics);
        Gauge.builder("hook.deliveries.held", held, AtomicInteger::get)
                .description("Deliveries this replica holds (in flight or waiting for their endpoint)")
                .register(metrics);
        this.releasedOnShutdown = Counter.builder("hook.deliveries.released_on_shutdown")
                .description("Leases this replica handed back when it stopped, so other replicas took them at once")
                .register(metrics);
        this.claimFailures = Counter.builder("hook.delivery.claim.failures")
                .description("Claims of due deliveries that failed (the database out of reach): none is sent meanwhile")
                .register(metrics);
        this.unattempted = Counter.builder("hook.deliveries.unattempted")
                .description("Claims handed back without an attempt while running: a delivery waited for its endpoint's"
                        + " turn until too little of its lease was left (a stuck queue when it keeps rising)")
                .register(metrics);
        this.claimed = DistributionSummary.builder("hook.deliveries.claimed")
                .description("Deliveries per claim that took any: near 1 when each claim carries one hook (a"
                        + " transaction each), up to hook.delivery.batch-size under load (hook.delivery.claim-delay)")
                .register(metrics);
    }

    void claimed(int deliveries) {
        if (deliveries > 0) {
            claimed.record(deliveries);
        }
    }

    /** Deliveries this replica holds: claimed, and not yet recorded or handed back. */
    AtomicInteger held() {
        return held;
    }

    void releasedOnShutdown(int leases) {
        releasedOnShutdown.increment(leases);
    }

    void unattempted() {
        unattempted.increment();
    }

    @Scheduled(every = "10s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void sample() {
        try {
            queued = queries.queued();
            disabled = queries.disabledEndpoints();
        } catch (RuntimeException e) {
            LOG.debugf("The queue's gauges keep their last figures: %s", e.getMessage()); // the claim loop warns
        }
    }

    Counter claimFailures() {
        return claimFailures;
    }
}
