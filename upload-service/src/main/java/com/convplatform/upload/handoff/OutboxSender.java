package com.convplatform.upload.handoff;

import java.io.IOException;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

import org.eclipse.microprofile.faulttolerance.exceptions.FaultToleranceException;
import org.jboss.logging.Logger;

import com.convplatform.support.LocalTransaction;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduled;

/**
 * Hands each logged message on to hook-service's intake, from the outbox written with the message: when hook-service
 * is down the upload has still succeeded, and the event goes out once it is back (backoff 1 s doubling to 5 min).
 * At least once: hook-service accepts the same (account_id, message_id) only once.
 * <p>
 * Two ways out, both posting batches of up to {@value #BATCH} events in one call to hook-service's batch intake
 * ({@code POST /internal/v1/events/batch}, through {@link HookIntakeClient}), which answers for each event; each event
 * carries the X-Request-Id of its upload as its {@code request_id}. A hook-service without the batch intake (404: an
 * older version, the services are deployed independently) gets the batch's events one call each, with the request id
 * in X-Request-Id.
 * <ul>
 * <li><b>Straight after the commit</b> ({@link #handOn}): each event is written already claimed by this process
 * ({@link #ownClaim}, due only when {@link #LEASE} has passed), and this sender's own thread posts it with the others
 * committed meanwhile. No query finds it and no claim is written.</li>
 * <li><b>By a poll</b> ({@link #send}, every {@code upload.hook-service.poll-interval}): what is due, that is events
 * that failed and waited out their backoff, and events whose claim's lease ran out because the process that wrote them
 * stopped before sending them. A batch is claimed first: its events get this poll's token and their next attempt
 * moves {@link #LEASE} ahead, so the poll of another replica skips them.</li>
 * </ul>
 * An accepted event is removed from the outbox (its message stays); a failed one waits for its backoff. A batch with a
 * failure ends the poll (hook-service is in trouble, or refused an event).
 */
@ApplicationScoped
public class OutboxSender {
    static final int BATCH = 32;
    public static final Duration LEASE = Duration.ofSeconds(60);
    private static final Logger LOG = Logger.getLogger(OutboxSender.class);
    /** Committed events waiting for this process's hand-off thread. */
    static final int HAND_ON_QUEUE = 4096;
    /**
     * How long the hand-off thread waits for a batch to fill once it has an event: without it, under load, most calls
     * carried a handful of events (46 601 calls for 295 045 events in a load test), each call costing both services.
     * At 5 ms, calls still carried 19 events on average; 10 ms adds at most that much to an event's way to
     * hook-service.
     */
    private static final long LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long FILL_STEP_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private final Clock clock;
    private final ObjectMapper json;
    private final DataSource dataSource;
    private final HookIntakeClient intake;
    private final Counter sentCounter;
    private final Counter failedCounter;
    private final String ownClaim = UUID.randomUUID().toString();
    private final ArrayBlockingQueue<Claimed> direct = new ArrayBlockingQueue<>(HAND_ON_QUEUE);
    private volatile boolean running = true;
    private Thread directSender;

    public OutboxSender(Clock clock, MeterRegistry metrics, ObjectMapper json, DataSource dataSource,
            HookIntakeClient intake) {
        this.intake = intake;
        this.dataSource = dataSource;
        this.clock = clock;
        this.json = json;
        Gauge.builder("upload.outbox.pending", this, OutboxSender::pending)
                .description("Logged messages not yet accepted by hook-service").register(metrics);
        this.sentCounter = Counter.builder("upload.handoff.sent").description("Events accepted by hook-service")
                .register(metrics);
        this.failedCounter = Counter.builder("upload.handoff.failed")
                .description("Posts to hook-service's intake that failed (retried later)").register(metrics);
    }

    @Scheduled(every = "${upload.hook-service.poll-interval}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void send() {
        for (List<Claimed> batch = claim(); !batch.isEmpty(); batch = claim()) {
            if (!deliver(batch)) {
                return;
            }
        }
    }

    /**
     * The claim under which this process writes each new event ({@code UploadService}): the event is not due until
     * {@link #LEASE} after its commit, so no poll (of this replica or another) takes it while {@link #handOn} sends it.
     */
    public String ownClaim() {
        return ownClaim;
    }

    /**
     * Sends a committed event now, with the others that are handed on meanwhile (at most {@value #BATCH} per call),
     * from this sender's own thread. Should that queue be full, or this process stop first, the event is sent by a
     * poll once its lease runs out.
     */
    public void handOn(Claimed event) {
        if (!running || !direct.offer(event)) {
            LOG.debugf("Event %s not queued (queue full or stopping); a poll sends it once its lease runs out",
                    event.id());
        }
    }

    @PostConstruct
    void startDirect() {
        directSender = new Thread(this::sendHandedOn, "upload-handoff");
        directSender.setDaemon(true);
        directSender.start();
    }

    @PreDestroy
    void stopDirect() {
        running = false;
        directSender.interrupt();
        try {
            directSender.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void sendHandedOn() {
        List<Claimed> batch = new ArrayList<>(BATCH);
        while (running) {
            try {
                Claimed first = direct.poll(200, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                fill(batch, System.nanoTime() + LINGER_NANOS);
                deliver(batch);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                // the events stay claimed in the database and are sent by a poll once their lease runs out
                LOG.warnf("Handing %d events on failed: %s", batch.size(), e.toString());
            } finally {
                batch.clear();
            }
        }
    }

    /**
     * Adds what is handed on until the batch is full or {@code until} (System.nanoTime) has come, looking every
     * {@link #FILL_STEP_NANOS}: waiting on the queue instead woke this thread for each event, some thirty wake-ups per
     * call under load, each a system call on both sides.
     */
    private void fill(List<Claimed> batch, long until) throws InterruptedException {
        direct.drainTo(batch, BATCH - batch.size());
        for (long left = until - System.nanoTime(); batch.size() < BATCH
                && left > 0; left = until - System.nanoTime()) {
            TimeUnit.NANOSECONDS.sleep(Math.min(left, FILL_STEP_NANOS));
            direct.drainTo(batch, BATCH - batch.size());
        }
    }

    /**
     * Posts a batch and records the outcome: accepted events are removed from the outbox, failed ones wait for their
     * backoff. Returns whether every event was accepted.
     */
    private boolean deliver(List<Claimed> batch) {
        List<String> errors = postBatch(batch);
        List<String> sent = new ArrayList<>();
        Map<String, String> failed = new LinkedHashMap<>();
        for (int i = 0; i < batch.size(); i++) {
            String error = errors.get(i);
            if (error == null) {
                sent.add(batch.get(i).id());
            } else {
                failed.put(batch.get(i).id(), error);
            }
        }
        removeSent(sent);
        if (!failed.isEmpty()) {
            // a JTA transaction even when the method finds nothing to do: 0.7 % of the service's CPU under load
            recordFailures(failed);
            LOG.warnf("hook-service did not accept %d of %d events; they are retried after their backoff (first: %s)",
                    failed.size(), batch.size(), failed.values().iterator().next());
        }
        sentCounter.increment(sent.size());
        failedCounter.increment(failed.size());
        return failed.isEmpty();
    }

    /** Posts the events; returns, per event in order, null when hook-service accepted it (or had), else why not. */
    private List<String> postBatch(List<Claimed> batch) {
        try {
            List<String> errors = intake.postBatch(batch.stream().map(Claimed::event).toList());
            return errors != null ? errors : postEach(batch);
        } catch (IOException | FaultToleranceException e) {
            return Collections.nCopies(batch.size(), e.getMessage());
        }
    }

    /** The events one call each (a hook-service without the batch intake), the request id as a header only. */
    private List<String> postEach(List<Claimed> batch) {
        List<String> out = new ArrayList<>(batch.size());
        for (Claimed o : batch) {
            ObjectNode event = o.event().deepCopy();
            String requestId = event.has("request_id") ? event.remove("request_id").asText() : null;
            try {
                out.add(intake.postOne(event, requestId));
            } catch (IOException | FaultToleranceException e) {
                out.add(e.getMessage());
            }
        }
        return out;
    }

    /** A claimed event: its row id, and the event as the batch intake takes it (with its upload's request id). */
    public record Claimed(String id, ObjectNode event) {
    }

    /** A due event as read, before the claim. */
    private record Due(Claimed event, OffsetDateTime nextAttemptAt) {
    }

    private static final String SELECT_DUE = "select id, payload, request_id, next_attempt_at from hook_outbox"
            + " where sent_at is null and next_attempt_at <= ? order by sent_at, next_attempt_at limit ?";
    private static final String CLAIM = "update hook_outbox set claim_token = ?, next_attempt_at = ?"
            + " where id = ? and sent_at is null and next_attempt_at = ?";
    private static final String REMOVE_SENT = "delete from hook_outbox where id = ?";

    /**
     * Claims up to {@value #BATCH} due events for one batch of this sender (see the class comment); empty only when
     * nothing is due (or other senders took what this one read five times running). Each row is taken by an UPDATE on
     * its primary key that holds only if the row is unchanged since it was read (not sent, and its next attempt still
     * the one read): of two senders that read the same row, the second updates nothing (the database re-checks the
     * condition after the first one's lock), and it looks again.
     * <p>
     * Plain JDBC, one UPDATE per row in one batch. The condition names the exact due time read rather than "due by
     * now": with a range test on the due index's columns, H2 chose that index and walked every unsent row for each
     * update, so each claim cost time in proportion to the backlog and a backlog made the sender fall further behind;
     * with both columns equal to known values either index finds the row at once. The select orders by both columns of
     * the due index, so that H2 reads it in order and stops at the batch (ordered by the due time alone it sorted every
     * unsent row: 20 ms a claim with 100 000 unsent); PostgreSQL plans both alike.
     */
    @Transactional
    List<Claimed> claim() {
        try (Connection c = dataSource.getConnection()) {
            for (int attempt = 0; attempt < 5; attempt++) {
                OffsetDateTime now = OffsetDateTime.ofInstant(clock.instant(), ZoneOffset.UTC);
                List<Due> due = new ArrayList<>(BATCH);
                try (PreparedStatement select = c.prepareStatement(SELECT_DUE)) {
                    select.setObject(1, now);
                    select.setInt(2, BATCH);
                    try (ResultSet r = select.executeQuery()) {
                        while (r.next()) {
                            due.add(new Due(new Claimed(r.getString(1), event(r.getString(2), r.getString(3))),
                                    r.getObject(4, OffsetDateTime.class)));
                        }
                    }
                }
                if (due.isEmpty()) {
                    return List.of();
                }
                int[] updated;
                try (PreparedStatement update = c.prepareStatement(CLAIM)) {
                    String token = UUID.randomUUID().toString();
                    OffsetDateTime leaseEnd = now.plus(LEASE);
                    for (Due d : due) {
                        update.setString(1, token);
                        update.setObject(2, leaseEnd);
                        update.setString(3, d.event().id());
                        update.setObject(4, d.nextAttemptAt());
                        update.addBatch();
                    }
                    updated = update.executeBatch();
                }
                List<Claimed> mine = new ArrayList<>(due.size());
                for (int i = 0; i < due.size(); i++) {
                    if (updated[i] > 0) {
                        mine.add(due.get(i).event());
                    }
                }
                if (!mine.isEmpty()) {
                    return mine;
                }
            }
            return List.of();
        } catch (SQLException e) {
            throw new IllegalStateException("Claiming hand-off events failed", e);
        }
    }

    /**
     * The stored event with its upload's request id as its first member: events are written with it already; an
     * event written before that (by an earlier version) gets it here. A row that is not a JSON object (only a damaged
     * one) goes as a string, for hook-service to refuse.
     */
    private ObjectNode event(String payload, String requestId) {
        ObjectNode event = json.createObjectNode();
        try {
            if (requestId != null && !payload.startsWith("{\"request_id\":")) {
                event.put("request_id", requestId);
            }
            return event.setAll((ObjectNode) json.readTree(payload));
        } catch (IOException | ClassCastException e) {
            return event.put("damaged_payload", payload);
        }
    }

    /**
     * Removes the accepted events from the outbox (their messages stay), in a {@link LocalTransaction}: under load this
     * runs for every batch, and a JTA transaction around it took a sixth of the hand-off thread's time.
     */
    private void removeSent(List<String> sent) {
        if (sent.isEmpty()) {
            return;
        }
        LocalTransaction.run(dataSource, "Removing sent hand-off events", c -> {
            try (PreparedStatement delete = c.prepareStatement(REMOVE_SENT)) {
                for (String id : sent) {
                    delete.setString(1, id);
                    delete.addBatch();
                }
                return delete.executeBatch();
            }
        });
    }

    /** The failed events wait for their backoff. */
    @Transactional
    void recordFailures(Map<String, String> failed) {
        Instant now = clock.instant();
        failed.forEach((id, error) -> {
            HookOutbox o = HookOutbox.findById(id);
            if (o == null) {
                return;
            }
            o.attempts++;
            long wait = Math.min(300, 1L << Math.min(o.attempts - 1, 9));
            o.nextAttemptAt = now.plusSeconds(wait);
            o.lastError = error.length() > 1000 ? error.substring(0, 1000) : error;
            o.claimToken = null;
        });
    }

    /** Events not yet accepted by hook-service. */
    public long pending() {
        return HookOutbox.count("sentAt is null");
    }
}
