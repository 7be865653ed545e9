package com.convplatform.hook.delivery;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;

import com.convplatform.hook.config.HookConfig;
import com.convplatform.hook.intake.HookEvent;

import io.micrometer.core.instrument.MeterRegistry;

/**
 * The outbox's state changes, each in its own short transaction. Claims use a conditional UPDATE on the lease, which
 * gives each due delivery to exactly one replica per attempt on H2 and PostgreSQL alike; a replica that dies loses
 * its lease when it expires, and the delivery is claimed again.
 */
@ApplicationScoped
public class DeliveryStore {
    /** A claimed delivery with what is needed to send it. */
    public record Claimed(String id, String accountId, String payload, int attempt, Instant receivedAt) {
    }

    private final EntityManager em;
    private final Clock clock;
    private final HookConfig config;
    private final MeterRegistry metrics;
    private final String owner = UUID.randomUUID().toString();

    public DeliveryStore(EntityManager em, Clock clock, HookConfig config, MeterRegistry metrics) {
        this.em = em;
        this.clock = clock;
        this.config = config;
        this.metrics = metrics;
    }

    @Transactional
    public List<Claimed> claimDue(int max) {
        Instant now = clock.instant();
        List<Delivery> due = Delivery.<Delivery>find(
                "status = ?1 and nextAttemptAt <= ?2 and (leaseUntil is null or leaseUntil < ?2) order by nextAttemptAt",
                Delivery.PENDING, now).page(0, max).list();
        List<Claimed> out = new ArrayList<>();
        Instant until = now.plus(config.delivery().lease());
        for (Delivery d : due) {
            int n = em.createQuery("update Delivery d set d.leaseOwner = :owner, d.leaseUntil = :until"
                    + " where d.id = :id and d.status = :pending and (d.leaseUntil is null or d.leaseUntil < :now)")
                    .setParameter("owner", owner).setParameter("until", until).setParameter("id", d.id)
                    .setParameter("pending", Delivery.PENDING).setParameter("now", now).executeUpdate();
            if (n == 1) {
                HookEvent e = HookEvent.findById(d.eventId);
                out.add(new Claimed(d.id, d.accountId, e.payload, d.attempts + 1, e.receivedAt));
            }
        }
        return out;
    }

    /** Records an attempt and moves the delivery on: delivered, scheduled again, or dead-lettered. */
    @Transactional
    public void record(Claimed c, Integer statusCode, String error, long latencyMs, Duration retryAfter,
            boolean permanent) {
        Instant now = clock.instant();
        DeliveryAttempt a = new DeliveryAttempt();
        a.id = UUID.randomUUID().toString();
        a.deliveryId = c.id();
        a.attempt = c.attempt();
        a.startedAt = now.minusMillis(latencyMs);
        a.latencyMs = latencyMs;
        a.statusCode = statusCode;
        a.error = error == null ? null : error.substring(0, Math.min(error.length(), 1000));
        a.persist();
        Delivery d = Delivery.findById(c.id());
        d.attempts = c.attempt();
        d.leaseOwner = null;
        d.leaseUntil = null;
        boolean ok = statusCode != null && statusCode >= 200 && statusCode < 300;
        List<Duration> schedule = config.delivery().retrySchedule();
        if (ok) {
            d.status = Delivery.DELIVERED;
            d.deliveredAt = now;
            d.lastError = null;
            metrics.counter("hook.deliveries.delivered").increment();
            metrics.timer("hook.intake.to.delivery").record(Duration.between(c.receivedAt(), now));
        } else if (permanent || c.attempt() > schedule.size()) {
            d.status = Delivery.DEAD;
            d.lastError = a.error != null ? a.error : "HTTP " + statusCode;
            metrics.counter("hook.deliveries.dead_lettered").increment();
        } else {
            Duration wait = jitter(schedule.get(c.attempt() - 1));
            if (retryAfter != null && retryAfter.compareTo(wait) > 0) {
                wait = retryAfter.compareTo(Duration.ofHours(24)) > 0 ? Duration.ofHours(24) : retryAfter;
            }
            d.nextAttemptAt = now.plus(wait);
            d.lastError = a.error != null ? a.error : "HTTP " + statusCode;
            metrics.counter("hook.deliveries.retried").increment();
        }
    }

    /** Gives a claimed delivery back untouched (for example when its endpoint is at its concurrency limit). */
    @Transactional
    public void release(String id) {
        Delivery d = Delivery.findById(id);
        if (d != null && owner.equals(d.leaseOwner)) {
            d.leaseOwner = null;
            d.leaseUntil = null;
        }
    }

    public long pendingCount() {
        return Delivery.count("status", Delivery.PENDING);
    }

    /** Plus or minus 20 %, so retries of many deliveries do not arrive together. */
    static Duration jitter(Duration d) {
        double f = 0.8 + ThreadLocalRandom.current().nextDouble() * 0.4;
        return Duration.ofMillis(Math.max(1, (long) (d.toMillis() * f)));
    }
}
