package com.convplatform.hook.delivery;

import static com.convplatform.support.LocalTransaction.bind;

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
import java.util.stream.Stream;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import com.convplatform.hook.config.HookConfig;
import com.convplatform.hook.delivery.Delivery.EndpointState;
import com.convplatform.support.LocalTransaction;
import com.convplatform.support.TimeOrderedIds;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * The outbox's state changes, run for every delivery, hence plain JDBC in a {@link LocalTransaction} (no JTA, no
 * Hibernate session), each statement's text the same whatever the number of rows (parsed once per connection).
 */
@ApplicationScoped
public class DeliveryStore {
    private static final Logger LOG = Logger.getLogger(DeliveryStore.class);

    /** A claimed delivery; {@code scheduleStart}: the last attempt before an operator's retry (0: none). */
    public record Claimed(String id, String accountId, String payload, int attempt, int scheduleStart,
            Instant receivedAt, String leaseOwner, Instant leaseUntil, String requestId, String traceparent) {
        /** 1 for the first attempt, or the first after a retry. */
        int step() {
            return attempt - scheduleStart;
        }
    }

    public record Accepted(String eventId, boolean duplicate) {
    }

    /** A valid event; {@code requestId} and {@code traceparent} may be null. */
    public record Valid(String accountId, long messageId, String payload, String requestId, String traceparent) {
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

    private final DataSource dataSource;
    private final Clock clock;
    private final HookConfig config;
    private final MeterRegistry metrics;
    private final Timer intakeToDelivery;
    private final ObjectMapper json;
    private final String replica = UUID.randomUUID().toString();
    private final AtomicLong claims = new AtomicLong();

    public DeliveryStore(DataSource dataSource, Clock clock, HookConfig config, MeterRegistry metrics,
            ObjectMapper json) {
        this.dataSource = dataSource;
        this.clock = clock;
        this.config = config;
        this.metrics = metrics;
        // fixed buckets (15 series) rather than a percentile histogram (about 70): enough for histogram_quantile's p99
        this.intakeToDelivery = Timer.builder("hook.intake.to.delivery")
                .description("From the intake of an event to the endpoint's acceptance of its hook")
                .serviceLevelObjectives(INTAKE_TO_DELIVERY_BUCKETS).register(metrics);
        this.json = json;
        LOG.infof("Delivery replica %s: the lease owners this replica writes start with it", replica);
    }

    private static final String FIND_EVENT = "select id from hook_event where account_id = ? and message_id = ?";
    private static final String INSERT_EVENT = "insert into hook_event"
            + " (id, account_id, message_id, payload, received_at, request_id, traceparent)"
            + " values (?, ?, ?, ?, ?, ?, ?)";
    private static final String INSERT_DELIVERY = "insert into delivery (id, event_id, account_id, status, attempts,"
            + " next_attempt_at, created_at) values (?, ?, ?, 'PENDING', 0, ?, ?)";

    /** A list that fails is given again event by event (group commit); one another replica stored is a duplicate. */
    public List<Accepted> acceptAll(List<Valid> events) {
        OffsetDateTime now = utc(clock.instant());
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
                String key = v.accountId() + '\n' + v.messageId();
                String earlier = inThisBatch.get(key);
                String existing = earlier != null ? earlier : find(find, v);
                String id = existing != null ? existing : TimeOrderedIds.next();
                stored.add(new Accepted(id, existing != null));
                if (existing == null) {
                    inThisBatch.put(key, id);
                    bind(event, id, v.accountId(), v.messageId(), v.payload(), now, v.requestId(), v.traceparent())
                            .addBatch();
                    bind(delivery, TimeOrderedIds.next(), id, v.accountId(), now, now).addBatch();
                }
            }
            if (!inThisBatch.isEmpty()) {
                event.executeBatch();
                delivery.executeBatch();
            }
        }
        return stored;
    }

    private static String find(PreparedStatement find, Valid v) throws SQLException {
        try (ResultSet r = bind(find, v.accountId(), v.messageId()).executeQuery()) {
            return r.next() ? r.getString(1) : null;
        }
    }

    /**
     * The lease test is repeated outside the pick (re-checked after the row lock): one claim per row. The order names
     * both columns of the due index, so H2 stops at the limit (by the due time alone it sorted every pending row: 10 ms
     * with 100 000 pending). Claimed rows are due again at their lease's end: a replica that dies hands them on.
     */
    private static final String TAKE = "update delivery set lease_owner = ?, lease_until = ?, next_attempt_at = ?"
            + " where status = 'PENDING' and (lease_until is null or lease_until < ?) and id in (select d.id from"
            + " delivery d where d.status = 'PENDING' and d.next_attempt_at <= ? and (d.lease_until is null or"
            + " d.lease_until < ?) and not exists (select 1 from endpoint_state s where s.account_id = d.account_id"
            + " and s.disabled_at is not null) order by d.status, d.next_attempt_at limit ?)";
    /** Read by the due index. */
    private static final String SELECT_TAKEN = "select d.id, d.account_id, d.attempts, e.payload, e.received_at,"
            + " e.request_id, e.traceparent, d.schedule_start from delivery d join hook_event e on e.id = d.event_id"
            + " where d.status = 'PENDING' and d.next_attempt_at = ? and d.lease_owner = ? order by d.created_at";

    public List<Claimed> claimDue(int max) {
        // In milliseconds: both databases keep the lease's end exactly, so the claimed rows are found by it.
        OffsetDateTime now = utc(clock.instant().truncatedTo(ChronoUnit.MILLIS));
        OffsetDateTime until = now.plus(config.delivery().lease());
        String owner = replica + ":" + claims.incrementAndGet();
        return LocalTransaction.run(dataSource, "Claiming due deliveries", c -> {
            if (update(c, TAKE, owner, until, until, now, now, now, max) == 0) {
                return List.of();
            }
            List<Claimed> out = new ArrayList<>(max);
            try (PreparedStatement taken = c.prepareStatement(SELECT_TAKEN);
                    ResultSet r = bind(taken, until, owner).executeQuery()) {
                while (r.next()) {
                    int attempts = r.getInt(3);
                    // A count below the schedule's start was set back to 0 by a replica from before V5 (a retry during
                    // the rolling update): the schedule counts from that reset (and the outcome records it so).
                    int scheduleStart = r.getInt(8) <= attempts ? r.getInt(8) : 0;
                    out.add(new Claimed(r.getString(1), r.getString(2), r.getString(4), attempts + 1, scheduleStart,
                            r.getObject(5, OffsetDateTime.class).toInstant(), owner, until.toInstant(),
                            r.getString(6), r.getString(7)));
                }
            }
            return out;
        });
    }

    private static final String INSERT_ATTEMPT = "insert into delivery_attempt"
            + " (id, delivery_id, attempt, started_at, latency_ms, status_code, error, signature_headers)"
            + " values (?, ?, ?, ?, ?, ?, ?, ?)";
    /** A delivery whose lease another claim owns by now keeps its state: the update finds no row. */
    private static final String UPDATE_DELIVERY = "update delivery set attempts = ?, schedule_start = ?, status = ?,"
            + " next_attempt_at = ?, delivered_at = ?, last_error = ?, lease_owner = null, lease_until = null"
            + " where id = ? and lease_owner = ?";

    /** Records attempts, moves their deliveries on and keeps the endpoints' failure streaks, in one transaction. */
    public void recordAll(List<Recorded> outcomes) {
        // In account order, so two replicas' batches lock the endpoints' rows in the same order (no deadlock).
        List<Recorded> sorted = outcomes.stream().sorted(Comparator.comparing(r -> r.claimed().accountId())).toList();
        Instant now = clock.instant();
        List<String> disabled = new ArrayList<>();
        List<Recorded> moved = LocalTransaction.run(dataSource, "Recording delivery outcomes", c -> {
            int[] updated;
            try (PreparedStatement attempt = c.prepareStatement(INSERT_ATTEMPT);
                    PreparedStatement delivery = c.prepareStatement(UPDATE_DELIVERY)) {
                for (Recorded r : sorted) {
                    Claimed cl = r.claimed();
                    Outcome o = r.outcome();
                    Instant started = now.minusMillis(r.latencyMs());
                    String error = o.error() == null
                            ? null
                            : o.error().substring(0, Math.min(o.error().length(), 1000));
                    bind(attempt, TimeOrderedIds.next(), cl.id(), cl.attempt(), utc(started), r.latencyMs(),
                            o.statusCode(), error, headers(r.signatureHeaders())).addBatch();
                    String status = status(cl, o);
                    // the claim had moved it to the lease's end; a retry falls due after its wait
                    Instant next = status.equals(Delivery.PENDING) ? now.plus(wait(cl, o)) : started;
                    bind(delivery, cl.attempt(), cl.scheduleStart(), status, utc(next), o.delivered() ? utc(now) : null,
                            error, cl.id(), cl.leaseOwner()).addBatch();
                }
                attempt.executeBatch();
                updated = delivery.executeBatch();
            }
            List<Recorded> changed = new ArrayList<>();
            Set<String> succeeded = new LinkedHashSet<>();
            for (int i = 0; i < sorted.size(); i++) {
                Recorded r = sorted.get(i);
                if (updated[i] == 0) {
                    continue; // another claim owns it by now: the attempt stays in the log, the state is the owner's
                }
                changed.add(r);
                if (r.outcome().delivered()) {
                    succeeded.add(r.claimed().accountId());
                } else if (r.outcome().endpointFault() && countFailure(c, r.claimed().accountId(), now)) {
                    disabled.add(r.claimed().accountId());
                }
            }
            if (!succeeded.isEmpty()) {
                update(c, "update endpoint_state set consecutive_failures = 0, failing_since = null where account_id"
                        + " = any(?) and consecutive_failures > 0", c.createArrayOf("varchar", succeeded.toArray()));
            }
            return changed;
        });
        // Counted once committed (a delivery another claim owns by now is counted by that one).
        for (Recorded r : moved) {
            metrics.counter(COUNTERS.get(status(r.claimed(), r.outcome()))).increment();
            if (r.outcome().delivered()) {
                intakeToDelivery.record(Duration.between(r.claimed().receivedAt(), now));
            }
        }
        disabled.forEach(account -> LOG.warnf("The endpoint of account %s is disabled by the rule (hook.endpoints.*);"
                + " its deliveries are held until an operator enables it (POST /admin/v1/accounts/%1$s/endpoint/enable)",
                account));
        metrics.counter("hook.endpoints.auto_disabled").increment(disabled.size());
    }

    String status(Claimed cl, Outcome o) {
        boolean dead = o.permanent() || cl.step() > config.delivery().retrySchedule().size();
        return o.delivered() ? Delivery.DELIVERED : dead ? Delivery.DEAD : Delivery.PENDING;
    }

    private Duration wait(Claimed cl, Outcome o) {
        // plus or minus 20 %, so retries of many deliveries do not arrive together
        double jitter = 0.8 + ThreadLocalRandom.current().nextDouble() * 0.4;
        Duration step = config.delivery().retrySchedule().get(cl.step() - 1);
        Duration wait = Duration.ofMillis(Math.max(1, (long) (step.toMillis() * jitter)));
        if (o.retryAfter() != null && o.retryAfter().compareTo(wait) > 0) {
            return o.retryAfter().compareTo(Duration.ofHours(24)) > 0 ? Duration.ofHours(24) : o.retryAfter();
        }
        return wait;
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

    private static final Map<String, String> COUNTERS = Map.of(Delivery.DELIVERED, "hook.deliveries.delivered",
            Delivery.DEAD, "hook.deliveries.dead_lettered", Delivery.PENDING, "hook.deliveries.retried");

    private static final String COUNT_FAILURE = "update endpoint_state set consecutive_failures ="
            + " consecutive_failures + 1, last_failure_at = ?, failing_since = coalesce(failing_since, ?)"
            + " where account_id = ?";
    private static final String FIRST_FAILURE = "insert into endpoint_state (account_id, consecutive_failures,"
            + " last_failure_at, failing_since) values (?, 1, ?, ?)";
    private static final String DISABLE = "update endpoint_state set disabled_at = ?, disabled_by = ?,"
            + " disabled_reason = ? where account_id = ? and disabled_at is null and consecutive_failures >= ?"
            + " and failing_since <= ?";

    /** Two replicas creating the row at once make one commit fail: that batch is recorded again, then it exists. */
    private boolean countFailure(Connection c, String accountId, Instant now) throws SQLException {
        if (update(c, COUNT_FAILURE, utc(now), utc(now), accountId) == 0) {
            update(c, FIRST_FAILURE, accountId, utc(now), utc(now));
        }
        String reason = "at least " + config.disableMinFailures() + " attempts in a row failed over at least "
                + config.disableAfter() + " with no success";
        return config.autoDisable() && update(c, DISABLE, utc(now), EndpointState.BY_RULE, reason, accountId,
                config.disableMinFailures(), utc(now.minus(config.disableAfter()))) == 1;
    }

    /** Gives a claimed delivery back untouched, due now. */
    public void release(Claimed claimed) {
        LocalTransaction.run(dataSource, "Giving back a claimed delivery", c -> update(c, "update delivery set"
                + " lease_owner = null, lease_until = null, next_attempt_at = ? where id = ? and lease_owner = ?",
                utc(clock.instant()), claimed.id(), claimed.leaseOwner()));
    }

    /** Read by the due index (a claimed row is due at its lease's end). */
    private static final String RELEASE_HELD = "update delivery set lease_owner = null, lease_until = null,"
            + " next_attempt_at = ? where status = 'PENDING' and next_attempt_at > ? and lease_until > ?"
            + " and lease_owner like ?";

    /** On shutdown, once no attempt is under way: every lease this replica holds, due now for any replica. */
    public int releaseHeld() {
        OffsetDateTime now = utc(clock.instant());
        return LocalTransaction.run(dataSource, "Handing back this replica's leases",
                c -> update(c, RELEASE_HELD, now, now, now, replica + ":%"));
    }

    private static int update(Connection c, String sql, Object... values) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            return bind(s, values).executeUpdate();
        }
    }

    private static OffsetDateTime utc(Instant t) {
        return OffsetDateTime.ofInstant(t, ZoneOffset.UTC);
    }

}
