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
import jakarta.persistence.LockModeType;
import jakarta.transaction.Transactional;

import org.jboss.logging.Logger;

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
    private static final Logger LOG = Logger.getLogger(DeliveryStore.class);

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
        List<Delivery> due = em.createQuery("select d from Delivery d where d.status = :pending"
                + " and d.nextAttemptAt <= :now and (d.leaseUntil is null or d.leaseUntil < :now)"
                + " and not exists (select 1 from EndpointState s where s.accountId = d.accountId"
                + " and s.disabledAt is not null) order by d.nextAttemptAt", Delivery.class)
                .setParameter("pending", Delivery.PENDING).setParameter("now", now).setMaxResults(max)
                .getResultList();
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

    /**
     * Records an attempt and moves the delivery on: delivered, scheduled again, or dead-lettered; and keeps the
     * endpoint's failure streak, disabling the endpoint when the rule says so (see {@link HookConfig.Endpoints}).
     */
    @Transactional
    public void record(Claimed c, Outcome o) {
        Instant now = clock.instant();
        DeliveryAttempt a = new DeliveryAttempt();
        a.id = UUID.randomUUID().toString();
        a.deliveryId = c.id();
        a.attempt = c.attempt();
        a.startedAt = now.minusMillis(o.latencyMs());
        a.latencyMs = o.latencyMs();
        a.statusCode = o.statusCode();
        a.error = o.error() == null ? null : o.error().substring(0, Math.min(o.error().length(), 1000));
        a.persist();
        Delivery d = Delivery.findById(c.id());
        d.attempts = c.attempt();
        d.leaseOwner = null;
        d.leaseUntil = null;
        List<Duration> schedule = config.delivery().retrySchedule();
        if (o.delivered()) {
            d.status = Delivery.DELIVERED;
            d.deliveredAt = now;
            d.lastError = null;
            metrics.counter("hook.deliveries.delivered").increment();
            metrics.timer("hook.intake.to.delivery").record(Duration.between(c.receivedAt(), now));
            em.createQuery("update EndpointState s set s.consecutiveFailures = 0, s.failingSince = null"
                    + " where s.accountId = :account and s.consecutiveFailures > 0")
                    .setParameter("account", c.accountId()).executeUpdate();
            return;
        }
        d.lastError = a.error != null ? a.error : "HTTP " + o.statusCode();
        if (o.permanent() || c.attempt() > schedule.size()) {
            d.status = Delivery.DEAD;
            metrics.counter("hook.deliveries.dead_lettered").increment();
        } else {
            Duration wait = jitter(schedule.get(c.attempt() - 1));
            if (o.retryAfter() != null && o.retryAfter().compareTo(wait) > 0) {
                wait = o.retryAfter().compareTo(Duration.ofHours(24)) > 0 ? Duration.ofHours(24) : o.retryAfter();
            }
            d.nextAttemptAt = now.plus(wait);
            metrics.counter("hook.deliveries.retried").increment();
        }
        if (o.endpointFault()) {
            countFailure(c.accountId(), now);
        }
    }

    private void countFailure(String accountId, Instant now) {
        EndpointState s = em.find(EndpointState.class, accountId, LockModeType.PESSIMISTIC_WRITE);
        if (s == null) {
            // A concurrent first failure of the same endpoint makes one of the two commits fail on the key; the
            // worker records that attempt again, and then the row exists.
            s = new EndpointState();
            s.accountId = accountId;
            s.persist();
        }
        s.consecutiveFailures++;
        s.lastFailureAt = now;
        if (s.failingSince == null) {
            s.failingSince = now;
        }
        HookConfig.Endpoints rule = config.endpoints();
        if (s.disabledAt == null && rule.autoDisable() && s.consecutiveFailures >= rule.disableMinFailures()
                && !now.isBefore(s.failingSince.plus(rule.disableAfter()))) {
            s.disabledAt = now;
            s.disabledBy = EndpointState.BY_RULE;
            s.disabledReason = s.consecutiveFailures + " attempts in a row failed since " + s.failingSince
                    + " with no success";
            metrics.counter("hook.endpoints.auto_disabled").increment();
            LOG.warnf("The endpoint of account %s is disabled: %s. Its deliveries are held until an operator"
                    + " enables it (POST /admin/v1/accounts/%s/endpoint/enable).", accountId, s.disabledReason,
                    accountId);
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
