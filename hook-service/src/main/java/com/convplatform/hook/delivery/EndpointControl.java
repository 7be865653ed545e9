package com.convplatform.hook.delivery;

import java.time.Clock;
import java.time.Instant;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.transaction.Transactional;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Disabling and enabling an account's endpoint by hand. A disabled endpoint's deliveries are held (PENDING, never
 * attempted, never dropped); enabling it clears the failure streak and makes every held delivery due at once.
 */
@ApplicationScoped
public class EndpointControl {
    /** An endpoint's state as the operator API shows it. */
    public record View(String accountId, boolean enabled, int consecutiveFailures, Instant failingSince,
            Instant lastFailureAt, Instant disabledAt, String disabledBy, String disabledReason, long heldDeliveries) {
    }

    private final EntityManager em;
    private final Clock clock;

    public EndpointControl(EntityManager em, Clock clock, MeterRegistry metrics) {
        this.em = em;
        this.clock = clock;
        Gauge.builder("hook.endpoints.disabled", this, EndpointControl::disabledCount)
                .description("Account endpoints currently disabled").register(metrics);
    }

    @Transactional
    public View view(String accountId) {
        EndpointState s = EndpointState.findById(accountId);
        long pending = Delivery.count("accountId = ?1 and status = ?2", accountId, Delivery.PENDING);
        if (s == null) {
            return new View(accountId, true, 0, null, null, null, null, null, pending);
        }
        return new View(accountId, s.disabledAt == null, s.consecutiveFailures, s.failingSince, s.lastFailureAt,
                s.disabledAt, s.disabledBy, s.disabledReason, pending);
    }

    /** Disables the endpoint (again: keeps the first disabling's time, replaces the reason). */
    @Transactional
    public View disable(String accountId, String reason) {
        EndpointState s = em.find(EndpointState.class, accountId, LockModeType.PESSIMISTIC_WRITE);
        if (s == null) {
            s = new EndpointState();
            s.accountId = accountId;
            s.persist();
        }
        if (s.disabledAt == null) {
            s.disabledAt = clock.instant();
        }
        s.disabledBy = EndpointState.BY_OPERATOR;
        s.disabledReason = reason == null || reason.isBlank() ? "disabled by an operator" : reason;
        em.flush();
        return view(accountId);
    }

    /** Enables the endpoint, clears its failure streak and makes its held deliveries due now. */
    @Transactional
    public View enable(String accountId) {
        EndpointState s = em.find(EndpointState.class, accountId, LockModeType.PESSIMISTIC_WRITE);
        if (s != null) {
            s.disabledAt = null;
            s.disabledBy = null;
            s.disabledReason = null;
            s.consecutiveFailures = 0;
            s.failingSince = null;
            em.createQuery("update Delivery d set d.nextAttemptAt = :now where d.accountId = :account"
                    + " and d.status = :pending and d.nextAttemptAt > :now"
                    + " and (d.leaseUntil is null or d.leaseUntil < :now)").setParameter("now", clock.instant())
                    .setParameter("account", accountId).setParameter("pending", Delivery.PENDING).executeUpdate();
        }
        em.flush();
        return view(accountId);
    }

    long disabledCount() {
        return EndpointState.count("disabledAt is not null");
    }
}
