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
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
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

/**
 * The outbox's state changes, each in its own short transaction: events taken in with their deliveries, claims,
 * outcomes. The same (account_id, message_id) is accepted once. Claims use a conditional UPDATE on the lease, which
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

    /** The outcome: the event id, and whether it had been accepted before. */
    public record Accepted(String eventId, boolean duplicate) {
    }

    /**
     * A valid event: the account, the message id, the payload to deliver (spec 2.2 JSON without
     * signature_timestamp), and the request id to log with its delivery.
     */
    public record Valid(String accountId, long messageId, String payload, String requestId) {
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

    private static final String FIND_EVENT = "select id from hook_event where account_id = ? and message_id = ?";
    private static final String INSERT_EVENT = "insert into hook_event"
            + " (id, account_id, message_id, payload, received_at, request_id) values (?, ?, ?, ?, ?, ?)";
    private static final String INSERT_DELIVERY = "insert into delivery (id, event_id, account_id, status, attempts,"
            + " next_attempt_at, created_at) values (?, ?, ?, 'PENDING', 0, ?, ?)";

    /**
     * Stores each event with its delivery, due now, in one transaction for all (all or none), unless the same
     * (account_id, message_id) was accepted before or earlier in the list; returns one outcome per event, in order.
     * Plain JDBC in a {@link LocalTransaction}: this runs for every event. When the list fails, the group-commit writer
     * gives each event alone again; one that then fails because another replica stored the same event meanwhile (the
     * unique constraint let that one in) is answered as that one's duplicate.
     */
    public List<Accepted> acceptAll(List<Valid> events) {
        OffsetDateTime now = OffsetDateTime.ofInstant(clock.instant(), ZoneOffset.UTC);
        List<Accepted> out;
        try {
            out = LocalTransaction.run(dataSource, "Storing the events", c -> store(c, events, now));
        } catch (RuntimeException e) {
            String raced = events.size() > 1
                    ? null
                    : LocalTransaction.run(dataSource, "Looking up the event", c -> {
                        try (PreparedStatement find = c.prepareStatement(FIND_EVENT)) {
                            return find(find, events.get(0));
                        }
                    });
            if (raced == null) {
                throw e;
            }
            return List.of(new Accepted(raced, true));
        }
        metrics.counter("hook.events.accepted").increment(out.stream().filter(a -> !a.duplicate()).count());
        return out;
    }

    private static List<Accepted> store(Connection c, List<Valid> events, OffsetDateTime now) throws SQLException {
        List<Accepted> stored = new ArrayList<>(events.size());
        Map<String, String> inThisBatch = new HashMap<>();
        try (PreparedStatement find = c.prepareStatement(FIND_EVENT);
                PreparedStatement event = c.prepareStatement(INSERT_EVENT);
                PreparedStatement delivery = c.prepareStatement(INSERT_DELIVERY)) {
            for (Valid v : events) {
                String earlier = inThisBatch.get(v.accountId() + '\n' + v.messageId());
                String existing = earlier != null ? earlier : find(find, v);
                if (existing != null) {
                    stored.add(new Accepted(existing, true));
                    continue;
                }
                String id = TimeOrderedIds.next();
                inThisBatch.put(v.accountId() + '\n' + v.messageId(), id);
                stored.add(new Accepted(id, false));
                event.setString(1, id);
                event.setString(2, v.accountId());
                event.setLong(3, v.messageId());
                event.setString(4, v.payload());
                event.setObject(5, now);
                event.setString(6, v.requestId());
                event.addBatch();
                delivery.setString(1, TimeOrderedIds.next());
                delivery.setString(2, id);
                delivery.setString(3, v.accountId());
                delivery.setObject(4, now);
                delivery.setObject(5, now);
                delivery.addBatch();
            }
            if (!inThisBatch.isEmpty()) {
                event.executeBatch();
                delivery.executeBatch();
            }
        }
        return stored;
    }

    /** The id of the event accepted earlier with this (account_id, message_id), or null. */
    private static String find(PreparedStatement find, Valid v) throws SQLException {
        find.setString(1, v.accountId());
        find.setLong(2, v.messageId());
        try (ResultSet r = find.executeQuery()) {
            return r.next() ? r.getString(1) : null;
        }
    }

    /**
     * Takes the oldest due deliveries of endpoints that are not disabled, unless another claim took them first: the
     * lease test is repeated outside the pick, and the database re-checks it after the row lock (PostgreSQL
     * re-evaluates the WHERE clause on a row changed concurrently; H2 locks the row). The pick's order names both
     * columns of the due index so that H2 reads it in order and stops at the limit (ordered by the due time alone it
     * reads and sorts every pending row: 10 ms per claim with 100 000 pending). The claimed rows become due again when
     * their lease ends, so they leave the head of the due index (the next claim does not step over the deliveries in
     * flight) and a replica that dies hands them on.
     */
    private static final String TAKE = "update delivery set lease_owner = ?, lease_until = ?, next_attempt_at = ?"
            + " where status = 'PENDING' and (lease_until is null or lease_until < ?) and id in (select d.id from"
            + " delivery d where d.status = 'PENDING' and d.next_attempt_at <= ? and (d.lease_until is null or"
            + " d.lease_until < ?) and not exists (select 1 from endpoint_state s where s.account_id = d.account_id"
            + " and s.disabled_at is not null) order by d.status, d.next_attempt_at limit ?)";
    /** The rows this claim took: due again at its lease's end, with its owner token (read by the due index). */
    private static final String SELECT_TAKEN = "select d.id, d.account_id, d.attempts, e.payload, e.received_at,"
            + " e.request_id from delivery d join hook_event e on e.id = d.event_id where d.status = 'PENDING'"
            + " and d.next_attempt_at = ? and d.lease_owner = ? order by d.created_at";

    /** Claims up to {@code max} due deliveries, oldest due first, with a lease unique to this claim. */
    public List<Claimed> claimDue(int max) {
        // In milliseconds: both databases keep the lease's end exactly, so the claimed rows are found by it.
        OffsetDateTime now = utc(clock.instant().truncatedTo(ChronoUnit.MILLIS));
        OffsetDateTime until = now.plus(config.delivery().lease());
        String owner = replica + ":" + claims.incrementAndGet();
        return LocalTransaction.run(dataSource, "Claiming due deliveries", c -> {
            try (PreparedStatement take = c.prepareStatement(TAKE);
                    PreparedStatement taken = c.prepareStatement(SELECT_TAKEN)) {
                List<Object> values = List.of(owner, until, until, now, now, now, max);
                for (int i = 0; i < values.size(); i++) {
                    take.setObject(i + 1, values.get(i));
                }
                if (take.executeUpdate() == 0) {
                    return List.of();
                }
                taken.setObject(1, until);
                taken.setString(2, owner);
                List<Claimed> out = new ArrayList<>(max);
                try (ResultSet r = taken.executeQuery()) {
                    while (r.next()) {
                        out.add(new Claimed(r.getString(1), r.getString(2), r.getString(4), r.getInt(3) + 1,
                                r.getObject(5, OffsetDateTime.class).toInstant(), owner, until.toInstant(),
                                r.getString(6)));
                    }
                }
                return out;
            }
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

    /** The metrics of outcomes once committed (a delivery another claim owns by now is counted by that one). */
    private void count(List<Recorded> sorted, int[] moved, Instant now) {
        for (int i = 0; i < sorted.size(); i++) {
            Recorded r = sorted.get(i);
            String status = moved[i] == 0 ? null : status(r.claimed(), r.outcome());
            if (Delivery.DELIVERED.equals(status)) {
                metrics.counter("hook.deliveries.delivered").increment();
                metrics.timer("hook.intake.to.delivery").record(Duration.between(r.claimed().receivedAt(), now));
            } else if (status != null) {
                metrics.counter(status.equals(Delivery.DEAD)
                        ? "hook.deliveries.dead_lettered"
                        : "hook.deliveries.retried").increment();
            }
        }
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
