package com.convplatform.hook.delivery;

import static com.convplatform.support.LocalTransaction.bind;

import java.sql.Array;
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
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import com.convplatform.hook.config.HookConfig;
import com.convplatform.support.LeaseQueue;
import com.convplatform.support.LocalTransaction;
import com.convplatform.support.TimeOrderedIds;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * The delivery queue's claims and outcomes, run for every delivery (README, Storage): plain JDBC in a
 * {@link LocalTransaction}, each statement's text the same whatever the number of rows. The queue table
 * ({@code delivery_queue}) holds only unfinished deliveries (queued by {@link IntakeRepository}), claimed through
 * service-support's {@link LeaseQueue}; a finished one moves to {@code delivery_history} (and a dead one is named in
 * {@code dead_letter}); every attempt is appended to {@code delivery_attempt}.
 */
@ApplicationScoped
public class DeliveryStore {
    private static final Logger LOG = Logger.getLogger(DeliveryStore.class);
    public static final String PENDING = "PENDING";
    public static final String DELIVERED = "DELIVERED";
    public static final String DEAD = "DEAD";
    public static final String BY_RULE = "rule";
    public static final String BY_OPERATOR = "operator";

    /** A claimed delivery; {@code scheduleStart}: the last attempt before an operator's retry (0: none). */
    public record Claimed(String id, String eventId, String accountId, long messageId, String payload, int attempt,
            int scheduleStart, Instant receivedAt, String leaseOwner, Instant leaseUntil, String requestId,
            String traceparent) {
        /** 1 for the first attempt, or the first after a retry. */
        int step() {
            return attempt - scheduleStart;
        }
    }

    /** What one attempt came to; {@code endpointFault}: it counts against the endpoint (the platform's never does). */
    public record Outcome(Integer statusCode, String error, Duration retryAfter, boolean permanent,
            boolean endpointFault) {
        public static Outcome answered(int statusCode, Duration retryAfter) {
            boolean ok = statusCode >= 200 && statusCode < 300;
            String redirect = statusCode >= 300 && statusCode < 400 ? " (redirects are not followed)" : "";
            return new Outcome(statusCode, ok ? null : "HTTP " + statusCode + redirect, retryAfter, false, !ok);
        }

        public static Outcome endpointFailed(String error) {
            return new Outcome(null, error, null, false, true);
        }

        public static Outcome platformFailed(String error) {
            return new Outcome(null, error, null, false, false);
        }

        /** Dead-lettered at once. */
        public static Outcome permanent(String error) {
            return new Outcome(null, error, null, true, false);
        }

        public boolean delivered() {
            return statusCode != null && statusCode >= 200 && statusCode < 300;
        }
    }

    /** An attempt's outcome and the signature headers its request carried, as sent (empty when it sent none). */
    public record Recorded(Claimed claimed, Outcome outcome, long latencyMs, Map<String, String> signatureHeaders) {
    }

    /** The histogram's buckets, from a quick delivery to one held for hours by retries or a disabled endpoint. */
    static final Duration[] INTAKE_TO_DELIVERY_BUCKETS = Stream.of("PT0.01S", "PT0.025S", "PT0.05S", "PT0.1S",
            "PT0.25S", "PT0.5S", "PT1S", "PT2.5S", "PT10S", "PT1M", "PT5M", "PT30M", "PT2H", "PT12H")
            .map(Duration::parse).toArray(Duration[]::new);

    private static final String RETURNING = "t.id, t.event_id, t.account_id, t.message_id, t.payload, t.received_at,"
            + " t.request_id, t.traceparent, t.attempts, t.schedule_start, exists (select 1 from endpoint_state s"
            + " where s.account_id = t.account_id and s.disabled_at is not null)";

    private final DataSource dataSource;
    private final Clock clock;
    private final HookConfig config;
    private final ObjectMapper json;
    private final MeterRegistry metrics;
    private final RetrySchedule schedule;
    private final EndpointHealth endpoints;
    private final Timer intakeToDelivery;
    private final LeaseQueue queue = new LeaseQueue("delivery_queue", "not held", RETURNING);

    DeliveryStore(DataSource dataSource, Clock clock, HookConfig config, ObjectMapper json,
            MeterRegistry metrics, RetrySchedule schedule, EndpointHealth endpoints) {
        this.dataSource = dataSource;
        this.clock = clock;
        this.config = config;
        this.json = json;
        this.metrics = metrics;
        this.schedule = schedule;
        this.endpoints = endpoints;
        // fixed buckets (15 series) rather than a percentile histogram (about 70): enough for histogram_quantile's p99
        this.intakeToDelivery = Timer.builder("hook.intake.to.delivery")
                .description("From the intake of an event to the endpoint's acceptance of its hook")
                .serviceLevelObjectives(INTAKE_TO_DELIVERY_BUCKETS).register(metrics);
        LOG.infof("Delivery replica %s: the lease owners this replica writes start with it", queue.replica());
    }

    public LeaseQueue queue() {
        return queue;
    }

    /**
     * Holds the claimed deliveries whose endpoint the claim saw disabled, asking again under a share lock on the
     * endpoint's row: an enabling that committed since (it let go only the rows held then) leaves them due instead,
     * lease released, and one still running is waited for. Without the second look such a delivery stayed held on an
     * enabled endpoint.
     */
    private static final String HOLD = "update delivery_queue q set held = exists (select 1 from endpoint_state s"
            + " where s.account_id = q.account_id and s.disabled_at is not null for share), lease_owner = null,"
            + " lease_until = null where id = any(?)";

    /**
     * Claims up to {@code max} due deliveries under a lease. A claimed delivery whose endpoint was disabled after it
     * was queued (an endpoint disabled while its event was being stored) is held instead, out of every later claim.
     */
    public List<Claimed> claimDue(int max) {
        // In milliseconds, as the lease's end is kept.
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        Instant until = now.plus(config.delivery().lease());
        return LocalTransaction.run(dataSource, "Claiming due deliveries", c -> {
            List<String> hold = new ArrayList<>();
            List<Claimed> out = new ArrayList<>(max);
            for (Claimed claimed : queue.claim(c, now, until, max, (r, owner, leaseUntil) -> {
                if (r.getBoolean(11)) {
                    hold.add(r.getString(1));
                    return null;
                }
                return new Claimed(r.getString(1), r.getString(2), r.getString(3), r.getLong(4), r.getString(5),
                        r.getInt(9) + 1, Math.min(r.getInt(10), r.getInt(9)),
                        r.getObject(6, OffsetDateTime.class).toInstant(), owner, leaseUntil, r.getString(7),
                        r.getString(8));
            })) {
                if (claimed != null) {
                    out.add(claimed);
                }
            }
            if (!hold.isEmpty()) {
                try (PreparedStatement s = c.prepareStatement(HOLD)) {
                    s.setArray(1, uuids(c, hold));
                    s.executeUpdate();
                }
            }
            out.sort(Comparator.comparing(Claimed::receivedAt));
            return out;
        });
    }

    private static final String INSERT_ATTEMPT = "insert into delivery_attempt"
            + " (id, delivery_id, attempt, started_at, latency_ms, status_code, error, signature_headers)"
            + " values (?, ?, ?, ?, ?, ?, ?, ?)";
    /** A delivery whose lease another claim owns by now keeps its state: the update finds no row. */
    private static final String RESCHEDULE = "update delivery_queue set attempts = ?, schedule_start = ?,"
            + " next_attempt_at = ?, last_error = ?, lease_owner = null, lease_until = null where id = ? and"
            + " lease_owner = ?";
    /**
     * The finished deliveries moved from the queue into the history in one statement, each only while this claim still
     * holds its lease: the row's own columns are copied by the database, not sent back; the ids moved are returned.
     */
    static final String FINISH = "with gone as (delete from delivery_queue q using unnest(?::uuid[], ?::varchar[],"
            + " ?::varchar[], ?::integer[], ?::varchar[]) as k(id, owner, status, attempts, last_error) where q.id = k.id"
            + " and q.lease_owner = k.owner returning q.id, q.event_id, q.account_id, q.message_id, q.payload,"
            + " q.request_id, q.traceparent, q.received_at, k.status, k.attempts, k.last_error)"
            + " insert into delivery_history (id, event_id, account_id, message_id, status, attempts, payload,"
            + " request_id, traceparent, received_at, finished_at, last_error) select id, event_id, account_id,"
            + " message_id, status, attempts, payload, request_id, traceparent, received_at, ?, last_error from gone"
            + " returning id";
    private static final String GUARDED_FINISH = LeaseQueue.guarded(FINISH);
    private static final String INSERT_DEAD = "insert into dead_letter (delivery_id, account_id, finished_at)"
            + " values (?, ?, ?) on conflict (delivery_id) do update set finished_at = excluded.finished_at";
    private static final String COUNT_HOUR = "insert into delivery_stats (hour, delivered, dead, failed_attempts)"
            + " values (?, ?, ?, ?) on conflict (hour) do update set delivered = delivery_stats.delivered +"
            + " excluded.delivered, dead = delivery_stats.dead + excluded.dead, failed_attempts ="
            + " delivery_stats.failed_attempts + excluded.failed_attempts";
    /**
     * The hour's counts, then the failure streaks of the endpoints that took a delivery ended, in one statement (a round
     * trip less); the streaks' update reads the count's row, so the hour's row is always locked first.
     */
    private static final String COUNT_HOUR_ENDING_STREAKS = "with counted as (" + COUNT_HOUR + " returning 1) "
            + EndpointHealth.END_STREAKS + " and exists (select from counted)";

    /**
     * Records attempts, moves their deliveries on (rescheduled, or finished into the history) and keeps the endpoints'
     * failure streaks, in one transaction.
     */
    public void recordAll(List<Recorded> outcomes) {
        // In account order, so two replicas' batches lock the endpoints' rows in the same order (no deadlock).
        List<Recorded> sorted = outcomes.stream().sorted(Comparator.comparing(r -> r.claimed().accountId())).toList();
        Instant now = clock.instant();
        List<String> disabled = new ArrayList<>();
        Map<Recorded, String> status = new IdentityHashMap<>(); // judged once: DELIVERED, DEAD or PENDING
        outcomes.forEach(r -> status.put(r, schedule.status(r.claimed(), r.outcome())));
        List<Recorded> changed = LocalTransaction.run(dataSource, "Recording delivery outcomes", c -> {
            List<Recorded> finishing = new ArrayList<>();
            List<Recorded> retrying = new ArrayList<>();
            for (Recorded r : sorted) {
                (status.get(r).equals(PENDING) ? retrying : finishing).add(r);
            }
            // The queue is emptied and refilled all day: its rows are found by their keys, whatever the statistics
            // say. The guard goes with the transaction's first statement, or alone when nothing finished.
            Set<String> finished = finishing.isEmpty() ? Set.of() : finish(c, finishing, status, now);
            if (finishing.isEmpty()) {
                LeaseQueue.guardPlans(c);
            }
            long[] hour = new long[3]; // delivered, dead, failed attempts: all in now's hour
            try (PreparedStatement attempt = c.prepareStatement(INSERT_ATTEMPT)) {
                for (Recorded r : sorted) {
                    Claimed cl = r.claimed();
                    Outcome o = r.outcome();
                    Instant started = now.minusMillis(r.latencyMs());
                    bind(attempt, UUID.fromString(TimeOrderedIds.next()), UUID.fromString(cl.id()), cl.attempt(),
                            utc(started), r.latencyMs(), o.statusCode(), error(o), headers(r.signatureHeaders()))
                            .addBatch();
                    if (!o.delivered()) {
                        hour[2]++;
                    }
                }
                attempt.executeBatch();
            }
            List<Recorded> moved = new ArrayList<>();
            if (!retrying.isEmpty()) {
                try (PreparedStatement reschedule = c.prepareStatement(RESCHEDULE)) {
                    for (Recorded r : retrying) {
                        Claimed cl = r.claimed();
                        bind(reschedule, cl.attempt(), cl.scheduleStart(),
                                utc(now.plus(schedule.wait(cl, r.outcome()))),
                                error(r.outcome()), UUID.fromString(cl.id()), cl.leaseOwner()).addBatch();
                    }
                    int[] updated = reschedule.executeBatch();
                    for (int i = 0; i < retrying.size(); i++) {
                        if (updated[i] > 0) { // else another claim owns it by now: the attempt stays in the log
                            moved.add(retrying.get(i));
                        }
                    }
                }
            }
            boolean anyDead = false;
            try (PreparedStatement dead = c.prepareStatement(INSERT_DEAD)) {
                for (Recorded r : finishing) {
                    if (!finished.contains(r.claimed().id())) {
                        continue; // another claim owns it by now
                    }
                    if (DEAD.equals(status.get(r))) {
                        bind(dead, UUID.fromString(r.claimed().id()), r.claimed().accountId(), utc(now)).addBatch();
                        anyDead = true;
                        hour[1]++;
                    } else {
                        hour[0]++;
                    }
                    moved.add(r);
                }
                if (anyDead) {
                    dead.executeBatch();
                }
            }
            // The hour's row first, in every transaction that locks endpoints' rows: it orders the replicas' outcome
            // transactions, so two of them never hold each other's endpoints.
            Set<String> succeeded = new LinkedHashSet<>();
            for (Recorded r : moved) {
                if (r.outcome().delivered()) {
                    succeeded.add(r.claimed().accountId());
                }
            }
            if (hour[0] + hour[1] + hour[2] > 0) {
                OffsetDateTime at = utc(now.truncatedTo(ChronoUnit.HOURS));
                if (succeeded.isEmpty()) {
                    update(c, COUNT_HOUR, at, hour[0], hour[1], hour[2]);
                } else {
                    update(c, COUNT_HOUR_ENDING_STREAKS, at, hour[0], hour[1], hour[2],
                            c.createArrayOf("varchar", succeeded.toArray()));
                }
            }
            for (Recorded r : moved) {
                if (!r.outcome().delivered() && r.outcome().endpointFault()
                        && endpoints.countFailure(c, r.claimed().accountId(), now)) {
                    disabled.add(r.claimed().accountId());
                }
            }
            return moved;
        });
        // Counted once committed (a delivery another claim owns by now is counted by that one).
        for (Recorded r : changed) {
            metrics.counter(COUNTERS.get(status.get(r))).increment();
            if (r.outcome().delivered()) {
                intakeToDelivery.record(Duration.between(r.claimed().receivedAt(), now));
            }
        }
        disabled.forEach(account -> LOG.warnf("The endpoint of account %s is disabled by the rule (hook.endpoints.*);"
                + " its deliveries are held until an operator enables it (POST /admin/v1/accounts/%1$s/endpoint/enable)",
                account));
        metrics.counter("hook.endpoints.auto_disabled").increment(disabled.size());
    }

    /** Moves the finished deliveries still leased by their claims into the history; the ids moved. */
    private static Set<String> finish(Connection c, List<Recorded> finishing, Map<Recorded, String> status,
            Instant now) throws SQLException {
        int n = finishing.size();
        Object[] ids = new Object[n];
        Object[] owners = new Object[n];
        Object[] statuses = new Object[n];
        Object[] attempts = new Object[n];
        Object[] errors = new Object[n];
        for (int i = 0; i < n; i++) {
            Recorded r = finishing.get(i);
            ids[i] = UUID.fromString(r.claimed().id());
            owners[i] = r.claimed().leaseOwner();
            statuses[i] = status.get(r);
            attempts[i] = r.claimed().attempt();
            errors[i] = error(r.outcome());
        }
        Set<String> moved = new HashSet<>();
        try (PreparedStatement s = c.prepareStatement(GUARDED_FINISH)) {
            bind(s, c.createArrayOf("uuid", ids), c.createArrayOf("varchar", owners),
                    c.createArrayOf("varchar", statuses),
                    c.createArrayOf("integer", attempts), c.createArrayOf("varchar", errors), utc(now));
            try (ResultSet r = LeaseQueue.guardedQuery(s)) {
                while (r.next()) {
                    moved.add(r.getString(1));
                }
            }
        }
        return moved;
    }

    private static final Map<String, String> COUNTERS = Map.of(DELIVERED, "hook.deliveries.delivered", DEAD,
            "hook.deliveries.dead_lettered", PENDING, "hook.deliveries.retried");

    private static String error(Outcome o) {
        return o.error() == null ? null : o.error().substring(0, Math.min(o.error().length(), 1000));
    }

    private String headers(Map<String, String> headers) {
        if (headers.isEmpty()) {
            return null;
        }
        try {
            return json.writeValueAsString(headers);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Header names and values are strings: " + e.getMessage(), e);
        }
    }

    /** Gives a claimed delivery back untouched (due when it was). */
    public void release(Claimed claimed) {
        LocalTransaction.run(dataSource, "Giving back a claimed delivery",
                c -> queue.release(c, UUID.fromString(claimed.id()), claimed.leaseOwner()));
    }

    /** On shutdown, once no attempt is under way: every lease this replica still holds, due at once for any replica. */
    public int releaseHeld(Collection<String> ids) {
        return queue.releaseAll(dataSource, ids.stream().map(UUID::fromString).toList());
    }

    static int update(Connection c, String sql, Object... values) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            return bind(s, values).executeUpdate();
        }
    }

    static Array uuids(Connection c, Collection<String> ids) throws SQLException {
        return c.createArrayOf("uuid", ids.stream().map(UUID::fromString).toArray());
    }

    static OffsetDateTime utc(Instant t) {
        return OffsetDateTime.ofInstant(t, ZoneOffset.UTC);
    }
}
