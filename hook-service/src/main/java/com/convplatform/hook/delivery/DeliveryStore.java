package com.convplatform.hook.delivery;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.transaction.Transactional;

import org.jboss.logging.Logger;

import com.convplatform.hook.config.HookConfig;
import com.convplatform.support.AfterCommit;

import io.micrometer.core.instrument.MeterRegistry;

/**
 * The outbox's state changes, each in its own short transaction. Claims use a conditional UPDATE on the lease, which
 * gives each due delivery to exactly one replica per attempt on H2 and PostgreSQL alike; a replica that dies loses
 * its lease when it expires, and the delivery is claimed again.
 */
@ApplicationScoped
public class DeliveryStore {
    private static final Logger LOG = Logger.getLogger(DeliveryStore.class);

    /**
     * A claimed delivery with what is needed to send it. {@code leaseOwner} is unique to the claim that took it, and
     * the lease ends at {@code leaseUntil}.
     */
    public record Claimed(String id, String accountId, String payload, int attempt, Instant receivedAt,
            String leaseOwner, Instant leaseUntil, String requestId) {
    }

    private final EntityManager em;
    private final Clock clock;
    private final HookConfig config;
    private final MeterRegistry metrics;
    private final AfterCommit afterCommit;
    private final String replica = UUID.randomUUID().toString();
    private final AtomicLong claims = new AtomicLong();

    public DeliveryStore(EntityManager em, Clock clock, HookConfig config, MeterRegistry metrics,
            AfterCommit afterCommit) {
        this.em = em;
        this.clock = clock;
        this.config = config;
        this.metrics = metrics;
        this.afterCommit = afterCommit;
    }

    /**
     * Claims up to {@code max} due deliveries: picks the oldest due ids (index on status and due time), then takes
     * them with one conditional UPDATE by primary key that repeats the lease test, so when two replicas pick the same
     * rows the database's re-check after the row lock gives each row to one of them only (PostgreSQL re-evaluates the
     * WHERE clause of an UPDATE on a row changed concurrently; H2 locks the row). Every statement reads by index,
     * never by scanning delivered rows. Deliveries of disabled endpoints are never claimed.
     */
    @Transactional
    public List<Claimed> claimDue(int max) {
        if (max <= 0) {
            return List.of();
        }
        Instant now = clock.instant();
        Instant until = now.plus(config.delivery().lease());
        @SuppressWarnings("unchecked")
        List<String> due = em.createNativeQuery("select d.id from delivery d where d.status = 'PENDING'"
                + " and d.next_attempt_at <= ?1 and (d.lease_until is null or d.lease_until < ?1)"
                + " and not exists (select 1 from endpoint_state s where s.account_id = d.account_id"
                + " and s.disabled_at is not null) order by d.next_attempt_at limit ?2").setParameter(1, now)
                .setParameter(2, max).getResultList();
        if (due.isEmpty()) {
            return List.of();
        }
        String token = replica + ":" + claims.incrementAndGet();
        // The claimed rows become due again when their lease ends: they leave the head of the due index, so the next
        // claim does not step over the deliveries in flight, and a replica that dies hands them on at lease end.
        int n = em.createQuery("update Delivery set leaseOwner = :token, leaseUntil = :until, nextAttemptAt = :until"
                + " where id in :ids and status = :pending and (leaseUntil is null or leaseUntil < :now)")
                .setParameter("token", token)
                .setParameter("until", until).setParameter("ids", due).setParameter("pending", Delivery.PENDING)
                .setParameter("now", now).executeUpdate();
        if (n == 0) {
            return List.of();
        }
        List<Object[]> rows = em
                .createQuery("select d.id, d.accountId, d.attempts, e.payload, e.receivedAt, e.requestId"
                        + " from Delivery d, HookEvent e where d.id in :ids and d.leaseOwner = :token and e.id = d.eventId"
                        + " order by d.nextAttemptAt", Object[].class)
                .setParameter("ids", due).setParameter("token", token)
                .getResultList();
        List<Claimed> out = new ArrayList<>(rows.size());
        for (Object[] r : rows) {
            out.add(new Claimed((String) r[0], (String) r[1], (String) r[3], (Integer) r[2] + 1, (Instant) r[4],
                    token, until, (String) r[5]));
        }
        return out;
    }

    /** An attempt's outcome, to be recorded. */
    public record Recorded(Claimed claimed, Outcome outcome) {
    }

    /**
     * Records an attempt and moves the delivery on: delivered, scheduled again, or dead-lettered; and keeps the
     * endpoint's failure streak, disabling the endpoint when the rule says so (see {@link HookConfig.Endpoints}).
     * Several outcomes go in one transaction: all are recorded, or none.
     */
    @Transactional
    public void recordAll(List<Recorded> outcomes) {
        // In account order, so two replicas' batches lock the endpoints' rows in the same order (no deadlock).
        outcomes.stream().sorted(Comparator.comparing(r -> r.claimed().accountId()))
                .forEach(r -> recordOne(r.claimed(), r.outcome()));
    }

    private void recordOne(Claimed c, Outcome o) {
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
        if (!c.leaseOwner().equals(d.leaseOwner)) {
            // The lease ran out and another claim owns the delivery now: keep the attempt in the log, leave the
            // state to the owner.
            return;
        }
        d.attempts = c.attempt();
        d.leaseOwner = null;
        d.leaseUntil = null;
        d.nextAttemptAt = a.startedAt; // the claim had moved it to the lease's end; a retry sets it below
        List<Duration> schedule = config.delivery().retrySchedule();
        if (o.delivered()) {
            d.status = Delivery.DELIVERED;
            d.deliveredAt = now;
            d.lastError = null;
            Duration sinceIntake = Duration.between(c.receivedAt(), now);
            afterCommit.run(() -> {
                metrics.counter("hook.deliveries.delivered").increment();
                metrics.timer("hook.intake.to.delivery").record(sinceIntake);
            });
            em.createQuery("update EndpointState s set s.consecutiveFailures = 0, s.failingSince = null"
                    + " where s.accountId = :account and s.consecutiveFailures > 0")
                    .setParameter("account", c.accountId()).executeUpdate();
            return;
        }
        d.lastError = a.error != null ? a.error : "HTTP " + o.statusCode();
        if (o.permanent() || c.attempt() > schedule.size()) {
            d.status = Delivery.DEAD;
            afterCommit.run(() -> metrics.counter("hook.deliveries.dead_lettered").increment());
        } else {
            Duration wait = jitter(schedule.get(c.attempt() - 1));
            if (o.retryAfter() != null && o.retryAfter().compareTo(wait) > 0) {
                wait = o.retryAfter().compareTo(Duration.ofHours(24)) > 0 ? Duration.ofHours(24) : o.retryAfter();
            }
            d.nextAttemptAt = now.plus(wait);
            afterCommit.run(() -> metrics.counter("hook.deliveries.retried").increment());
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
            afterCommit.run(() -> metrics.counter("hook.endpoints.auto_disabled").increment());
            LOG.warnf("The endpoint of account %s is disabled: %s. Its deliveries are held until an operator"
                    + " enables it (POST /admin/v1/accounts/%s/endpoint/enable).", accountId, s.disabledReason,
                    accountId);
        }
    }

    /** Gives a claimed delivery back untouched (its lease would run out before it could be sent). */
    @Transactional
    public void release(Claimed c) {
        Delivery d = Delivery.findById(c.id());
        if (d != null && c.leaseOwner().equals(d.leaseOwner)) {
            d.leaseOwner = null;
            d.leaseUntil = null;
            d.nextAttemptAt = clock.instant();
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
