package com.convplatform.hook.delivery;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.transaction.Transactional;

import org.jboss.logging.Logger;

import com.convplatform.hook.config.HookConfig;
import com.convplatform.support.AfterCommit;
import com.convplatform.support.TimeOrderedIds;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

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
    private final DataSource dataSource;
    private final Clock clock;
    private final HookConfig config;
    private final MeterRegistry metrics;
    private final AfterCommit afterCommit;
    private final String replica = UUID.randomUUID().toString();
    private final AtomicLong claims = new AtomicLong();

    public DeliveryStore(EntityManager em, DataSource dataSource, Clock clock, HookConfig config, MeterRegistry metrics,
            AfterCommit afterCommit) {
        this.em = em;
        this.dataSource = dataSource;
        this.clock = clock;
        this.config = config;
        this.metrics = metrics;
        this.afterCommit = afterCommit;
    }

    /**
     * A lease token unique to one claim (or one intake batch that leases its new deliveries to this replica), and
     * the lease's end for a lease taken now.
     */
    public record Lease(String owner, Instant until) {
    }

    /** A new lease, unique to this replica and call, ending {@code hook.delivery.lease} from {@code now}. */
    public Lease newLease(Instant now) {
        return new Lease(replica + ":" + claims.incrementAndGet(), now.plus(config.delivery().lease()));
    }

    /**
     * Claims up to {@code max} due deliveries: picks the oldest due ids (index on status and due time), then takes
     * them with one conditional UPDATE by primary key that repeats the lease test, so when two replicas pick the same
     * rows the database's re-check after the row lock gives each row to one of them only (PostgreSQL re-evaluates the
     * WHERE clause of an UPDATE on a row changed concurrently; H2 locks the row). Every statement reads by index,
     * never by scanning delivered rows. Deliveries of disabled endpoints are never claimed. Plain JDBC on the
     * transaction's connection: this runs for every batch of deliveries.
     */
    @Transactional
    public List<Claimed> claimDue(int max) {
        if (max <= 0) {
            return List.of();
        }
        Instant now = clock.instant();
        Lease lease = newLease(now);
        try (Connection c = dataSource.getConnection()) {
            List<String> due = new ArrayList<>(max);
            try (PreparedStatement s = c.prepareStatement(SELECT_DUE)) {
                s.setObject(1, utc(now));
                s.setObject(2, utc(now));
                s.setInt(3, max);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        due.add(r.getString(1));
                    }
                }
            }
            if (due.isEmpty()) {
                return List.of();
            }
            String ids = String.join(",", Collections.nCopies(due.size(), "?"));
            // The claimed rows become due again when their lease ends: they leave the head of the due index, so the
            // next claim does not step over the deliveries in flight, and a replica that dies hands them on at lease
            // end.
            int n;
            try (PreparedStatement s = c.prepareStatement("update delivery set lease_owner = ?, lease_until = ?,"
                    + " next_attempt_at = ? where id in (" + ids + ") and status = 'PENDING'"
                    + " and (lease_until is null or lease_until < ?)")) {
                s.setString(1, lease.owner());
                s.setObject(2, utc(lease.until()));
                s.setObject(3, utc(lease.until()));
                for (int i = 0; i < due.size(); i++) {
                    s.setString(4 + i, due.get(i));
                }
                s.setObject(4 + due.size(), utc(now));
                n = s.executeUpdate();
            }
            if (n == 0) {
                return List.of();
            }
            List<Claimed> out = new ArrayList<>(n);
            try (PreparedStatement s = c.prepareStatement("select d.id, d.account_id, d.attempts, e.payload,"
                    + " e.received_at, e.request_id from delivery d join hook_event e on e.id = d.event_id"
                    + " where d.id in (" + ids + ") and d.lease_owner = ? order by d.created_at")) {
                for (int i = 0; i < due.size(); i++) {
                    s.setString(1 + i, due.get(i));
                }
                s.setString(1 + due.size(), lease.owner());
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        out.add(new Claimed(r.getString(1), r.getString(2), r.getString(4), r.getInt(3) + 1,
                                r.getObject(5, OffsetDateTime.class).toInstant(), lease.owner(), lease.until(),
                                r.getString(6)));
                    }
                }
            }
            return out;
        } catch (SQLException e) {
            throw new IllegalStateException("Claiming due deliveries failed", e);
        }
    }

    /**
     * The oldest due deliveries. The order names both columns of the due index so that H2 reads it in order and stops
     * at the limit (ordered by the due time alone it reads and sorts every pending row: 10 ms per claim with 100 000
     * pending); PostgreSQL reads the index in order either way.
     */
    private static final String SELECT_DUE = "select d.id from delivery d where d.status = 'PENDING'"
            + " and d.next_attempt_at <= ? and (d.lease_until is null or d.lease_until < ?)"
            + " and not exists (select 1 from endpoint_state s where s.account_id = d.account_id"
            + " and s.disabled_at is not null) order by d.status, d.next_attempt_at limit ?";

    /** An attempt's outcome, to be recorded. */
    public record Recorded(Claimed claimed, Outcome outcome) {
    }

    /**
     * Records attempts and moves their deliveries on: delivered, scheduled again, or dead-lettered; and keeps the
     * endpoints' failure streaks, disabling an endpoint when the rule says so (see {@link HookConfig.Endpoints}).
     * Several outcomes go in one transaction: all are recorded, or none. Plain JDBC batches on the transaction's
     * connection (this runs for every delivered hook): one batch of attempt rows, one of conditional delivery
     * updates (a delivery whose lease another claim owns by now keeps its state: the update finds no row), and one
     * streak reset per account that had a delivery.
     */
    @Transactional
    public void recordAll(List<Recorded> outcomes) {
        // In account order, so two replicas' batches lock the endpoints' rows in the same order (no deadlock).
        List<Recorded> sorted = outcomes.stream().sorted(Comparator.comparing(r -> r.claimed().accountId())).toList();
        Instant now = clock.instant();
        List<Duration> schedule = config.delivery().retrySchedule();
        int[] moved;
        try (Connection c = dataSource.getConnection()) {
            try (PreparedStatement attempt = c.prepareStatement(INSERT_ATTEMPT);
                    PreparedStatement delivery = c.prepareStatement(UPDATE_DELIVERY)) {
                for (Recorded r : sorted) {
                    Claimed cl = r.claimed();
                    Outcome o = r.outcome();
                    Instant started = now.minusMillis(o.latencyMs());
                    String error = o.error() == null
                            ? null
                            : o.error().substring(0, Math.min(o.error().length(), 1000));
                    attempt.setString(1, TimeOrderedIds.next());
                    attempt.setString(2, cl.id());
                    attempt.setInt(3, cl.attempt());
                    attempt.setObject(4, utc(started));
                    attempt.setLong(5, o.latencyMs());
                    attempt.setObject(6, o.statusCode());
                    attempt.setString(7, error);
                    attempt.addBatch();
                    String status;
                    Instant next = started; // the claim had moved it to the lease's end; a retry sets it below
                    if (o.delivered()) {
                        status = Delivery.DELIVERED;
                    } else if (o.permanent() || cl.attempt() > schedule.size()) {
                        status = Delivery.DEAD;
                    } else {
                        status = Delivery.PENDING;
                        Duration wait = jitter(schedule.get(cl.attempt() - 1));
                        if (o.retryAfter() != null && o.retryAfter().compareTo(wait) > 0) {
                            wait = o.retryAfter().compareTo(Duration.ofHours(24)) > 0
                                    ? Duration.ofHours(24)
                                    : o.retryAfter();
                        }
                        next = now.plus(wait);
                    }
                    delivery.setInt(1, cl.attempt());
                    delivery.setString(2, status);
                    delivery.setObject(3, utc(next));
                    delivery.setObject(4, o.delivered() ? utc(now) : null);
                    delivery.setString(5, o.delivered() ? null : error != null ? error : "HTTP " + o.statusCode());
                    delivery.setString(6, cl.id());
                    delivery.setString(7, cl.leaseOwner());
                    delivery.addBatch();
                }
                attempt.executeBatch();
                moved = delivery.executeBatch();
            }
            Set<String> reset = new LinkedHashSet<>();
            for (int i = 0; i < sorted.size(); i++) {
                if (moved[i] != 0 && sorted.get(i).outcome().delivered()) {
                    reset.add(sorted.get(i).claimed().accountId());
                }
            }
            if (!reset.isEmpty()) {
                try (PreparedStatement s = c.prepareStatement("update endpoint_state set consecutive_failures = 0,"
                        + " failing_since = null where account_id = ? and consecutive_failures > 0")) {
                    for (String account : reset) {
                        s.setString(1, account);
                        s.addBatch();
                    }
                    s.executeBatch();
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Recording delivery outcomes failed", e);
        }
        int delivered = 0;
        int dead = 0;
        int retried = 0;
        List<Duration> sinceIntake = new ArrayList<>();
        for (int i = 0; i < sorted.size(); i++) {
            if (moved[i] == 0) {
                // The lease ran out and another claim owns the delivery now: the attempt stays in the log, the state
                // is the owner's.
                continue;
            }
            Claimed cl = sorted.get(i).claimed();
            Outcome o = sorted.get(i).outcome();
            if (o.delivered()) {
                delivered++;
                sinceIntake.add(Duration.between(cl.receivedAt(), now));
                continue;
            }
            if (o.permanent() || cl.attempt() > schedule.size()) {
                dead++;
            } else {
                retried++;
            }
            if (o.endpointFault()) {
                countFailure(cl.accountId(), now);
            }
        }
        int d = delivered;
        int x = dead;
        int y = retried;
        afterCommit.run(() -> {
            if (d > 0) {
                metrics.counter("hook.deliveries.delivered").increment(d);
                Timer latency = metrics.timer("hook.intake.to.delivery");
                sinceIntake.forEach(latency::record);
            }
            if (x > 0) {
                metrics.counter("hook.deliveries.dead_lettered").increment(x);
            }
            if (y > 0) {
                metrics.counter("hook.deliveries.retried").increment(y);
            }
        });
    }

    private static final String INSERT_ATTEMPT = "insert into delivery_attempt"
            + " (id, delivery_id, attempt, started_at, latency_ms, status_code, error) values (?, ?, ?, ?, ?, ?, ?)";
    private static final String UPDATE_DELIVERY = "update delivery set attempts = ?, status = ?, next_attempt_at = ?,"
            + " delivered_at = ?, last_error = ?, lease_owner = null, lease_until = null"
            + " where id = ? and lease_owner = ?";

    private static OffsetDateTime utc(Instant t) {
        return OffsetDateTime.ofInstant(t, ZoneOffset.UTC);
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

    /**
     * Gives claimed deliveries back untouched, due at once for any replica (this one stops, or a lease would run out
     * before the attempt could end). A delivery whose lease another claim owns by now is left alone.
     */
    @Transactional
    public void releaseAll(List<Claimed> claimed) {
        if (claimed.isEmpty()) {
            return;
        }
        try (Connection c = dataSource.getConnection();
                PreparedStatement s = c.prepareStatement("update delivery set lease_owner = null, lease_until = null,"
                        + " next_attempt_at = ? where id = ? and lease_owner = ?")) {
            OffsetDateTime now = utc(clock.instant());
            for (Claimed cl : claimed) {
                s.setObject(1, now);
                s.setString(2, cl.id());
                s.setString(3, cl.leaseOwner());
                s.addBatch();
            }
            s.executeBatch();
        } catch (SQLException e) {
            throw new IllegalStateException("Giving back claimed deliveries failed", e);
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
