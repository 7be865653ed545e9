package com.convplatform.hook.delivery;

import static com.convplatform.hook.delivery.DeliveryStore.utc;
import static com.convplatform.support.LocalTransaction.bind;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;

import com.convplatform.hook.config.HookConfig;
import com.convplatform.support.LeaseQueue;
import com.convplatform.support.LocalTransaction;
import com.convplatform.support.TimeOrderedIds;

import io.micrometer.core.instrument.MeterRegistry;

/**
 * The intake's writes: new events queued as deliveries ({@code delivery_queue}), and the duplicates found in the
 * queue or in the recent history ({@code delivery_history}), in one {@link LocalTransaction} per batch.
 */
@ApplicationScoped
public class IntakeRepository {
    public record Accepted(String eventId, boolean duplicate) {
    }

    /** A valid event; {@code requestId} and {@code traceparent} may be null. */
    public record Valid(String accountId, long messageId, String payload, String requestId, String traceparent) {
    }

    private final DataSource dataSource;
    private final Clock clock;
    private final HookConfig config;
    private final MeterRegistry metrics;

    IntakeRepository(DataSource dataSource, Clock clock, HookConfig config, MeterRegistry metrics) {
        this.dataSource = dataSource;
        this.clock = clock;
        this.config = config;
        this.metrics = metrics;
    }

    /**
     * A new delivery is held at once when its endpoint is disabled. The endpoint's row is read FOR SHARE, which an
     * operator's enabling (an update of non-key columns, so FOR NO KEY UPDATE) waits for and which waits for it: the
     * enabling either sees this row and lets it go, or is seen by it. (FOR KEY SHARE does not conflict with FOR NO KEY
     * UPDATE: under it, a delivery stored while its endpoint was enabled stayed held.) The row exists only for an
     * endpoint that failed or was disabled, so a healthy endpoint's intake takes no lock.
     */
    static final String INSERT = "insert into delivery_queue (id, event_id, account_id, message_id, payload,"
            + " request_id, traceparent, received_at, next_attempt_at, held) values (?, ?, ?, ?, ?, ?, ?, ?, ?,"
            + " coalesce((select s.disabled_at is not null from endpoint_state s where s.account_id = ? for share),"
            + " false)) on conflict (account_id, message_id) do nothing";
    private static final String QUEUED_EVENT = "select event_id from delivery_queue where account_id = ? and"
            + " message_id = ?";
    /**
     * The batch's keys found among the deliveries finished within the window, in one statement: each key by the
     * (account, message) index of the window's partitions (pruned by finished_at), as a lateral look-up so that no
     * plan reads a partition whole.
     */
    static final String FINISHED_EVENTS = "select k.account_id, k.message_id, h.event_id from unnest(?::varchar[],"
            + " ?::bigint[]) as k(account_id, message_id) cross join lateral (select event_id from delivery_history"
            + " where account_id = k.account_id and message_id = k.message_id and finished_at >= ? limit 1) h";
    private static final String GUARDED_FINISHED_EVENTS = LeaseQueue.guarded(FINISHED_EVENTS);
    private static final String FINISHED_EVENT = "select event_id from delivery_history where account_id = ? and"
            + " message_id = ? and finished_at >= ? limit 1";
    private static final String UNQUEUE = "delete from delivery_queue where id = any(?)";

    /**
     * Stores the events not accepted before, in one transaction. An event is a duplicate when its
     * {@code (account_id, message_id)} is in the queue, or finished within {@code hook.intake.duplicate-window}: the
     * row is inserted first and the history read after, so a delivery finishing meanwhile is always seen by one of
     * the two. Another replica storing the same event at once makes this insert wait, then skip it.
     */
    public List<Accepted> acceptAll(List<Valid> events) {
        Instant now = clock.instant();
        OffsetDateTime at = utc(now);
        OffsetDateTime window = utc(now.minus(config.intake().duplicateWindow()));
        List<Accepted> accepted = LocalTransaction.run(dataSource, "Storing the events", c -> {
            List<String> eventIds = new ArrayList<>(events.size());
            List<String> deliveryIds = new ArrayList<>(events.size());
            int[] inserted;
            try (PreparedStatement insert = c.prepareStatement(INSERT)) {
                for (Valid v : events) {
                    String eventId = TimeOrderedIds.next();
                    String deliveryId = TimeOrderedIds.next();
                    eventIds.add(eventId);
                    deliveryIds.add(deliveryId);
                    bind(insert, UUID.fromString(deliveryId), UUID.fromString(eventId), v.accountId(), v.messageId(),
                            v.payload(), v.requestId(), v.traceparent(), at, at, v.accountId()).addBatch();
                }
                inserted = insert.executeBatch();
            }
            // the keys just inserted, looked up in the history at once
            List<String> accounts = new ArrayList<>();
            List<Long> messages = new ArrayList<>();
            for (int i = 0; i < events.size(); i++) {
                if (inserted[i] != 0) {
                    accounts.add(events.get(i).accountId());
                    messages.add(events.get(i).messageId());
                }
            }
            Map<String, String> finished = new HashMap<>();
            // The history's statistics lag its growth: its look-ups go by the index, behind the plan guard (sent with
            // the first of them, or alone when the batch's every event was in the queue already).
            if (accounts.isEmpty()) {
                LeaseQueue.guardPlans(c);
            } else {
                try (PreparedStatement s = c.prepareStatement(GUARDED_FINISHED_EVENTS)) {
                    s.setArray(1, c.createArrayOf("varchar", accounts.toArray()));
                    s.setArray(2, c.createArrayOf("bigint", messages.toArray()));
                    s.setObject(3, window);
                    try (ResultSet r = LeaseQueue.guardedQuery(s)) {
                        while (r.next()) {
                            finished.put(r.getString(1) + '\n' + r.getLong(2), r.getString(3));
                        }
                    }
                }
            }
            List<Accepted> out = new ArrayList<>(events.size());
            List<UUID> unqueue = new ArrayList<>();
            try (PreparedStatement queued = c.prepareStatement(QUEUED_EVENT);
                    PreparedStatement finishedOne = c.prepareStatement(FINISHED_EVENT)) {
                for (int i = 0; i < events.size(); i++) {
                    Valid v = events.get(i);
                    if (inserted[i] == 0) {
                        String earlier = first(bind(queued, v.accountId(), v.messageId()));
                        if (earlier == null) { // finished between the insert and this read
                            earlier = first(bind(finishedOne, v.accountId(), v.messageId(), window));
                        }
                        out.add(new Accepted(earlier != null ? earlier : eventIds.get(i), true));
                    } else {
                        String earlier = finished.get(v.accountId() + '\n' + v.messageId());
                        if (earlier != null) {
                            unqueue.add(UUID.fromString(deliveryIds.get(i)));
                            out.add(new Accepted(earlier, true));
                        } else {
                            out.add(new Accepted(eventIds.get(i), false));
                        }
                    }
                }
            }
            if (!unqueue.isEmpty()) {
                try (PreparedStatement s = c.prepareStatement(UNQUEUE)) {
                    s.setArray(1, c.createArrayOf("uuid", unqueue.toArray()));
                    s.executeUpdate();
                }
            }
            return out;
        });
        metrics.counter("hook.events.accepted").increment(accepted.stream().filter(a -> !a.duplicate()).count());
        return accepted;
    }

    private static String first(PreparedStatement s) throws SQLException {
        try (ResultSet r = s.executeQuery()) {
            return r.next() ? r.getString(1) : null;
        }
    }
}
