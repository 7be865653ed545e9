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
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import com.convplatform.hook.config.HookConfig;
import com.convplatform.support.LocalTransaction;
import com.convplatform.support.TimeOrderedIds;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * The outbox's state changes, each in its own short transaction. Claims use a conditional UPDATE on the lease, which
 * gives each due delivery to exactly one replica per attempt on H2 and PostgreSQL alike; a replica that dies loses
 * its lease when it expires, and the delivery is claimed again.
 *
 * <p>
 * These run for every delivery, so they are plain JDBC in a {@link LocalTransaction} (no JTA transaction, no
 * Hibernate session), and each statement's text is the same whatever the number of rows (lists of ids go in one
 * array parameter): the database parses it once per connection, not once per call.
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

    /** An attempt's outcome, to be recorded. */
    public record Recorded(Claimed claimed, Outcome outcome) {
    }

    private final DataSource dataSource;
    private final Clock clock;
    private final HookConfig config;
    private final MeterRegistry metrics;
    private final String replica = UUID.randomUUID().toString();
    private final AtomicLong claims = new AtomicLong();

    public DeliveryStore(DataSource dataSource, Clock clock, HookConfig config, MeterRegistry metrics) {
        this.dataSource = dataSource;
        this.clock = clock;
        this.config = config;
        this.metrics = metrics;
    }

    /**
     * The oldest due deliveries of endpoints that are not disabled. The order names both columns of the due index so
     * that H2 reads it in order and stops at the limit (ordered by the due time alone it reads and sorts every pending
     * row: 10 ms per claim with 100 000 pending); PostgreSQL reads the index in order either way.
     */
    private static final String SELECT_DUE = "select d.id from delivery d where d.status = 'PENDING'"
            + " and d.next_attempt_at <= ? and (d.lease_until is null or d.lease_until < ?)"
            + " and not exists (select 1 from endpoint_state s where s.account_id = d.account_id"
            + " and s.disabled_at is not null) order by d.status, d.next_attempt_at limit ?";
    /**
     * Takes the picked rows unless another claim took them first: the lease test is repeated, and the database
     * re-checks it after the row lock (PostgreSQL re-evaluates the WHERE clause on a row changed concurrently; H2
     * locks the row). The claimed rows become due again when their lease ends, so they leave the head of the due index
     * (the next claim does not step over the deliveries in flight) and a replica that dies hands them on.
     */
    private static final String TAKE = "update delivery set lease_owner = ?, lease_until = ?, next_attempt_at = ?"
            + " where id = any(?) and status = 'PENDING' and (lease_until is null or lease_until < ?)";
    private static final String SELECT_TAKEN = "select d.id, d.account_id, d.attempts, e.payload, e.received_at,"
            + " e.request_id from delivery d join hook_event e on e.id = d.event_id"
            + " where d.id = any(?) and d.lease_owner = ? order by d.created_at";

    /** Claims up to {@code max} due deliveries, oldest due first, with a lease unique to this claim. */
    public List<Claimed> claimDue(int max) {
        Instant now = clock.instant();
        String owner = replica + ":" + claims.incrementAndGet();
        Instant until = now.plus(config.delivery().lease());
        return LocalTransaction.run(dataSource, "Claiming due deliveries", c -> {
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
            java.sql.Array ids = c.createArrayOf("varchar", due.toArray());
            try (PreparedStatement s = c.prepareStatement(TAKE)) {
                s.setString(1, owner);
                s.setObject(2, utc(until));
                s.setObject(3, utc(until));
                s.setArray(4, ids);
                s.setObject(5, utc(now));
                if (s.executeUpdate() == 0) {
                    return List.of();
                }
            }
            List<Claimed> out = new ArrayList<>(due.size());
            try (PreparedStatement s = c.prepareStatement(SELECT_TAKEN)) {
                s.setArray(1, ids);
                s.setString(2, owner);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        out.add(new Claimed(r.getString(1), r.getString(2), r.getString(4), r.getInt(3) + 1,
                                r.getObject(5, OffsetDateTime.class).toInstant(), owner, until, r.getString(6)));
                    }
                }
            }
            return out;
        });
    }

    private static final String INSERT_ATTEMPT = "insert into delivery_attempt"
            + " (id, delivery_id, attempt, started_at, latency_ms, status_code, error) values (?, ?, ?, ?, ?, ?, ?)";
    /** A delivery whose lease another claim owns by now keeps its state: the update finds no row. */
    private static final String UPDATE_DELIVERY = "update delivery set attempts = ?, status = ?, next_attempt_at = ?,"
            + " delivered_at = ?, last_error = ?, lease_owner = null, lease_until = null"
            + " where id = ? and lease_owner = ?";

    /**
     * Records attempts and moves their deliveries on: delivered, scheduled again, or dead-lettered; and keeps the
     * endpoints' failure streaks, disabling an endpoint when the rule says so (see {@link HookConfig.Endpoints}).
     * Several outcomes go in one transaction: all are recorded, or none.
     */
    public void recordAll(List<Recorded> outcomes) {
        // In account order, so two replicas' batches lock the endpoints' rows in the same order (no deadlock).
        List<Recorded> sorted = outcomes.stream().sorted(Comparator.comparing(r -> r.claimed().accountId())).toList();
        Instant now = clock.instant();
        List<Duration> schedule = config.delivery().retrySchedule();
        List<String> disabled = new ArrayList<>();
        int[] moved = LocalTransaction.run(dataSource, "Recording delivery outcomes", c -> {
            int[] updated;
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
                    delivery.setInt(1, cl.attempt());
                    delivery.setString(2, status(cl, o));
                    // the claim had moved it to the lease's end; a retry falls due after its wait
                    delivery.setObject(3,
                            utc(status(cl, o).equals(Delivery.PENDING) ? now.plus(wait(cl, o)) : started));
                    delivery.setObject(4, o.delivered() ? utc(now) : null);
                    delivery.setString(5, o.delivered() ? null : error != null ? error : "HTTP " + o.statusCode());
                    delivery.setString(6, cl.id());
                    delivery.setString(7, cl.leaseOwner());
                    delivery.addBatch();
                }
                attempt.executeBatch();
                updated = delivery.executeBatch();
            }
            Set<String> succeeded = new LinkedHashSet<>();
            for (int i = 0; i < sorted.size(); i++) {
                Recorded r = sorted.get(i);
                // A delivery another claim owns by now: the attempt stays in the log, the state is the owner's.
                if (updated[i] != 0 && r.outcome().delivered()) {
                    succeeded.add(r.claimed().accountId());
                } else if (updated[i] != 0 && r.outcome().endpointFault()
                        && countFailure(c, r.claimed().accountId(), now)) {
                    disabled.add(r.claimed().accountId());
                }
            }
            if (!succeeded.isEmpty()) {
                try (PreparedStatement s = c.prepareStatement("update endpoint_state set consecutive_failures = 0,"
                        + " failing_since = null where account_id = any(?) and consecutive_failures > 0")) {
                    s.setArray(1, c.createArrayOf("varchar", succeeded.toArray()));
                    s.executeUpdate();
                }
            }
            return updated;
        });
        count(sorted, moved, now);
        for (String accountId : disabled) {
            metrics.counter("hook.endpoints.auto_disabled").increment();
            LOG.warnf("The endpoint of account %s is disabled by the rule (hook.endpoints.*). Its deliveries are held"
                    + " until an operator enables it (POST /admin/v1/accounts/%s/endpoint/enable).", accountId,
                    accountId);
        }
    }

    private String status(Claimed cl, Outcome o) {
        return o.delivered()
                ? Delivery.DELIVERED
                : o.permanent() || cl.attempt() > config.delivery().retrySchedule().size()
                        ? Delivery.DEAD
                        : Delivery.PENDING;
    }

    /** The wait before a retry: the schedule's, jittered, or the receiver's Retry-After when longer (at most 24 h). */
    private Duration wait(Claimed cl, Outcome o) {
        Duration wait = jitter(config.delivery().retrySchedule().get(cl.attempt() - 1));
        if (o.retryAfter() != null && o.retryAfter().compareTo(wait) > 0) {
            return o.retryAfter().compareTo(Duration.ofHours(24)) > 0 ? Duration.ofHours(24) : o.retryAfter();
        }
        return wait;
    }

    /** The metrics of outcomes once committed. */
    private void count(List<Recorded> sorted, int[] moved, Instant now) {
        Timer latency = metrics.timer("hook.intake.to.delivery");
        int delivered = 0;
        int dead = 0;
        int retried = 0;
        for (int i = 0; i < sorted.size(); i++) {
            Recorded r = sorted.get(i);
            if (moved[i] == 0) {
                continue;
            }
            String status = status(r.claimed(), r.outcome());
            if (status.equals(Delivery.DELIVERED)) {
                delivered++;
                latency.record(Duration.between(r.claimed().receivedAt(), now));
            } else if (status.equals(Delivery.DEAD)) {
                dead++;
            } else {
                retried++;
            }
        }
        metrics.counter("hook.deliveries.delivered").increment(delivered);
        metrics.counter("hook.deliveries.dead_lettered").increment(dead);
        metrics.counter("hook.deliveries.retried").increment(retried);
    }

    private static final String COUNT_FAILURE = "update endpoint_state set consecutive_failures ="
            + " consecutive_failures + 1, last_failure_at = ?, failing_since = coalesce(failing_since, ?)"
            + " where account_id = ?";
    private static final String FIRST_FAILURE = "insert into endpoint_state (account_id, consecutive_failures,"
            + " last_failure_at, failing_since) values (?, 1, ?, ?)";
    private static final String DISABLE = "update endpoint_state set disabled_at = ?, disabled_by = ?,"
            + " disabled_reason = ? where account_id = ? and disabled_at is null and consecutive_failures >= ?"
            + " and failing_since <= ?";

    /**
     * Counts a failed attempt in the endpoint's streak and disables the endpoint when the rule says so; true when
     * this disabled it. Two replicas creating the row at once make one commit fail on the key: the worker records
     * that batch again, and then the row exists.
     */
    private boolean countFailure(Connection c, String accountId, Instant now) throws SQLException {
        HookConfig.Endpoints rule = config.endpoints();
        try (PreparedStatement count = c.prepareStatement(COUNT_FAILURE);
                PreparedStatement first = c.prepareStatement(FIRST_FAILURE);
                PreparedStatement disable = c.prepareStatement(DISABLE)) {
            for (PreparedStatement s : List.of(count, first)) {
                s.setString(s == count ? 3 : 1, accountId);
                s.setObject(s == count ? 1 : 2, utc(now));
                s.setObject(s == count ? 2 : 3, utc(now));
            }
            if (count.executeUpdate() == 0) {
                first.executeUpdate();
            }
            disable.setObject(1, utc(now));
            disable.setString(2, EndpointState.BY_RULE);
            disable.setString(3, "at least " + rule.disableMinFailures() + " attempts in a row failed over at least "
                    + rule.disableAfter() + " with no success");
            disable.setString(4, accountId);
            disable.setInt(5, rule.disableMinFailures());
            disable.setObject(6, utc(now.minus(rule.disableAfter())));
            return rule.autoDisable() && disable.executeUpdate() == 1;
        }
    }

    /**
     * Gives claimed deliveries back untouched, due at once for any replica (this one stops, or a lease would run out
     * before the attempt could end). A delivery whose lease another claim owns by now is left alone.
     */
    public void releaseAll(List<Claimed> claimed) {
        if (claimed.isEmpty()) {
            return;
        }
        LocalTransaction.run(dataSource, "Giving back claimed deliveries", c -> {
            try (PreparedStatement s = c.prepareStatement("update delivery set lease_owner = null, lease_until = null,"
                    + " next_attempt_at = ? where id = ? and lease_owner = ?")) {
                for (Claimed cl : claimed) {
                    s.setObject(1, utc(clock.instant()));
                    s.setString(2, cl.id());
                    s.setString(3, cl.leaseOwner());
                    s.addBatch();
                }
                return s.executeBatch();
            }
        });
    }

    public long pendingCount() {
        return Delivery.count("status", Delivery.PENDING);
    }

    static OffsetDateTime utc(Instant t) {
        return OffsetDateTime.ofInstant(t, ZoneOffset.UTC);
    }

    /** Plus or minus 20 %, so retries of many deliveries do not arrive together. */
    static Duration jitter(Duration d) {
        double f = 0.8 + ThreadLocalRandom.current().nextDouble() * 0.4;
        return Duration.ofMillis(Math.max(1, (long) (d.toMillis() * f)));
    }
}
