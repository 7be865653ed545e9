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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.IntStream;

import javax.sql.DataSource;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.transaction.Transactional;

import org.eclipse.microprofile.faulttolerance.exceptions.FaultToleranceException;
import org.jboss.logging.Logger;

import com.convplatform.support.LocalTransaction;
import com.convplatform.support.TraceContexts;
import com.convplatform.upload.config.UploadConfig;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.scheduler.Scheduled;

/**
 * Hands outbox events on to hook-service, at least once (README, "Storage and hand-off"): {@link #handOn} right after
 * the commit, for events written claimed by this process ({@link #ownClaim}, due after {@link #LEASE}), and a poll.
 */
@ApplicationScoped
public class OutboxSender {
    static final int BATCH = 32;
    public static final Duration LEASE = Duration.ofSeconds(60);
    private static final Logger LOG = Logger.getLogger(OutboxSender.class);
    /** How long a batch may fill: without it 46 601 calls carried 295 045 events under load; at 5 ms, 19 a call. */
    private static final long LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long FILL_STEP_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private final Clock clock;
    private final ObjectMapper json;
    private final DataSource dataSource;
    private final HookIntakeClient intake;
    private final HandoffTracing tracing;
    private final Counter sentCounter;
    private final Counter failedCounter;
    private final Counter releasedOnShutdown;
    private final Duration shutdownGrace;
    private final String ownClaim = UUID.randomUUID().toString();
    private final ArrayBlockingQueue<Claimed> direct = new ArrayBlockingQueue<>(4096); // committed, to hand on
    private volatile boolean running = true;
    private Thread directSender;
    /** Held by a poll while it claims and posts: the shutdown waits for it (up to the grace). */
    private final ReentrantLock polling = new ReentrantLock();
    /** Events hook-service accepted after the shutdown began. */
    private final AtomicInteger sentWhileStopping = new AtomicInteger();
    private Drained drained;

    public OutboxSender(Clock clock, MeterRegistry metrics, ObjectMapper json, DataSource dataSource,
            HookIntakeClient intake, HandoffTracing tracing, UploadConfig config) {
        this.intake = intake;
        this.tracing = tracing;
        this.shutdownGrace = config.hookService().shutdownGrace();
        this.dataSource = dataSource;
        this.clock = clock;
        this.json = json;
        Gauge.builder("upload.outbox.pending", () -> HookOutbox.count("sentAt is null"))
                .description("Logged messages not yet accepted by hook-service").register(metrics);
        this.sentCounter = Counter.builder("upload.handoff.sent").description("Events accepted by hook-service")
                .register(metrics);
        this.failedCounter = Counter.builder("upload.handoff.failed")
                .description("Posts to hook-service's intake that failed (retried later)").register(metrics);
        this.releasedOnShutdown = Counter.builder("upload.handoff.released_on_shutdown")
                .description("Outbox events this replica held when it stopped, handed back for the other replicas")
                .register(metrics);
    }

    @Scheduled(every = "${upload.hook-service.poll-interval}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void send() {
        polling.lock();
        try {
            while (running) {
                List<Claimed> batch = claim();
                if (batch.isEmpty() || !deliver(batch)) {
                    return;
                }
            }
        } finally {
            polling.unlock();
        }
    }

    /** The claim under which this process writes each new event, so no poll takes it while {@link #handOn} sends it. */
    public String ownClaim() {
        return ownClaim;
    }

    /** Sends a committed event from the hand-off thread; should the queue be full, a poll sends it after its lease. */
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

    public record Drained(int sent, int released) {
    }

    /** On any orderly stop, once the HTTP requests have ended ({@code quarkus.shutdown.timeout}). */
    void onShutdown(@Observes ShutdownEvent event) {
        drain(shutdownGrace);
    }

    /**
     * Stops claiming, lets the batch being posted end within {@code grace}, then hands back what this process holds
     * (README, Shutdown). Runs once; later calls return the first result.
     */
    public synchronized Drained drain(Duration grace) {
        if (drained != null) {
            return drained;
        }
        long deadline = System.nanoTime() + grace.toNanos();
        running = false;
        boolean cutOff = false;
        try {
            directSender.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (directSender.isAlive()) {
                cutOff = true;
                directSender.interrupt();
                directSender.join(2_000);
            }
            if (polling.tryLock(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                polling.unlock(); // no poll runs, and none claims from now on
            } else {
                cutOff = true;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        int released = 0;
        try {
            released = releaseHeld();
        } catch (RuntimeException e) {
            LOG.errorf(e, "Handing back this replica's outbox events failed; other replicas send them once their"
                    + " lease (%s) runs out", LEASE);
        }
        releasedOnShutdown.increment(released);
        drained = new Drained(sentWhileStopping.get(), released);
        LOG.infof("Hand-off stopped: %d events accepted by hook-service within upload.hook-service.shutdown-grace"
                + " (%s)%s; %d events handed back, due now for the other replicas", drained.sent(), grace,
                cutOff ? ", the batch still being posted was cut off" : "", released);
        return drained;
    }

    /** Hands back what is held if no shutdown event did (a container stopped early). */
    @PreDestroy
    void stopDirect() {
        drain(shutdownGrace);
    }

    private static final String RELEASE_HELD = "update hook_outbox set claim_token = null, next_attempt_at = ?"
            + " where claim_token = ? and sent_at is null and next_attempt_at > ?";

    /** Every unsent event this process holds: due now (no index on claim_token: read once per shutdown). */
    private int releaseHeld() {
        OffsetDateTime now = OffsetDateTime.ofInstant(clock.instant(), ZoneOffset.UTC);
        return LocalTransaction.run(dataSource, "Handing back this replica's outbox events", c -> {
            try (PreparedStatement release = c.prepareStatement(RELEASE_HELD)) {
                return LocalTransaction.bind(release, now, ownClaim, now).executeUpdate();
            }
        });
    }

    private void sendHandedOn() {
        List<Claimed> batch = new ArrayList<>(BATCH);
        while (running) {
            try {
                Claimed first = direct.poll(200, TimeUnit.MILLISECONDS);
                if (first != null) {
                    batch.add(first);
                    fill(batch, System.nanoTime() + LINGER_NANOS);
                    deliver(batch);
                }
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

    /** Looks every {@link #FILL_STEP_NANOS}: waiting on the queue woke the thread per event, ~30 syscalls a batch. */
    private void fill(List<Claimed> batch, long until) throws InterruptedException {
        direct.drainTo(batch, BATCH - batch.size());
        while (batch.size() < BATCH && until - System.nanoTime() > 0) {
            TimeUnit.NANOSECONDS.sleep(Math.min(until - System.nanoTime(), FILL_STEP_NANOS));
            direct.drainTo(batch, BATCH - batch.size());
        }
    }

    /** Posts a batch; accepted events leave the outbox, failed ones wait. Returns whether all were accepted. */
    private boolean deliver(List<Claimed> batch) {
        List<Span> spans = tracing.start(batch);
        List<String> errors = null;
        try {
            errors = postBatch(batch, spans);
        } finally {
            HandoffTracing.end(spans, errors);
        }
        List<String> sent = new ArrayList<>();
        Map<String, String> failed = new LinkedHashMap<>();
        for (int i = 0; i < batch.size(); i++) {
            if (errors.get(i) == null) {
                sent.add(batch.get(i).id());
            } else {
                failed.put(batch.get(i).id(), errors.get(i));
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
        if (!running) {
            sentWhileStopping.addAndGet(sent.size());
        }
        failedCounter.increment(failed.size());
        return failed.isEmpty();
    }

    /** Posts under the first event's span, each event with its own span's traceparent; per event null or why not. */
    private List<String> postBatch(List<Claimed> batch, List<Span> spans) {
        List<ObjectNode> events = new ArrayList<>(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            ObjectNode event = batch.get(i).event();
            String traceparent = TraceContexts.of(spans.get(i).getSpanContext());
            if (traceparent != null) {
                event.put(TraceContexts.TRACEPARENT, traceparent);
            }
            events.add(event);
        }
        try (Scope ignored = spans.get(0).makeCurrent()) {
            List<String> errors = intake.postBatch(events);
            return errors != null ? errors : postEach(events, spans);
        } catch (IOException | FaultToleranceException e) {
            return Collections.nCopies(batch.size(), e.getMessage());
        }
    }

    /** One call per event (no batch intake, or a batch too large), the request id and trace context as headers only. */
    private List<String> postEach(List<ObjectNode> events, List<Span> spans) {
        List<String> out = new ArrayList<>(events.size());
        for (int i = 0; i < events.size(); i++) {
            ObjectNode event = events.get(i).deepCopy();
            String requestId = event.has("request_id") ? event.remove("request_id").asText() : null;
            event.remove(TraceContexts.TRACEPARENT);
            try (Scope ignored = spans.get(i).makeCurrent()) {
                out.add(intake.postOne(event, requestId));
            } catch (IOException | FaultToleranceException e) {
                out.add(e.getMessage());
            }
        }
        return out;
    }

    /** A claimed event; traceparent and storedAt null when not stored; attempt 1 is the first post. */
    public record Claimed(String id, ObjectNode event, String traceparent, Instant storedAt, int attempt) {
    }

    private static final String SELECT_DUE = "select id, payload, request_id, next_attempt_at, traceparent, stored_at,"
            + " attempts from hook_outbox where sent_at is null and next_attempt_at <= ?"
            + " order by sent_at, next_attempt_at limit ?";
    private static final String CLAIM = "update hook_outbox set claim_token = ?, next_attempt_at = ?"
            + " where id = ? and sent_at is null and next_attempt_at = ?";
    private static final String REMOVE_SENT = "delete from hook_outbox where id = ?";

    /**
     * Claims up to {@value #BATCH} due events, each by an UPDATE on its key that holds only if the row is as read, so
     * of two senders the second updates nothing and looks again (five times). The UPDATE names the exact due time read:
     * with a range test H2 walked every unsent row of the due index per update. The select orders by both columns of
     * that index so H2 stops at the batch (by the due time alone: 20 ms a claim with 100 000 unsent).
     */
    @Transactional
    List<Claimed> claim() {
        try (Connection c = dataSource.getConnection();
                PreparedStatement select = c.prepareStatement(SELECT_DUE);
                PreparedStatement update = c.prepareStatement(CLAIM)) {
            for (int attempt = 0; attempt < 5; attempt++) {
                OffsetDateTime now = OffsetDateTime.ofInstant(clock.instant(), ZoneOffset.UTC);
                List<Claimed> due = new ArrayList<>(BATCH);
                try (ResultSet r = LocalTransaction.bind(select, now, BATCH).executeQuery()) {
                    while (r.next()) {
                        OffsetDateTime storedAt = r.getObject(6, OffsetDateTime.class);
                        due.add(new Claimed(r.getString(1), event(r.getString(2), r.getString(3)), r.getString(5),
                                storedAt == null ? null : storedAt.toInstant(), r.getInt(7) + 1));
                        // ownClaim: handed back by drain() on shutdown
                        LocalTransaction.bind(update, ownClaim, now.plus(LEASE), r.getString(1),
                                r.getObject(4, OffsetDateTime.class)).addBatch();
                    }
                }
                if (due.isEmpty()) {
                    return List.of();
                }
                int[] updated = update.executeBatch();
                List<Claimed> mine = IntStream.range(0, due.size()).filter(i -> updated[i] > 0).mapToObj(due::get)
                        .toList();
                if (!mine.isEmpty()) {
                    return mine;
                }
            }
            return List.of();
        } catch (SQLException e) {
            throw new IllegalStateException("Claiming hand-off events failed", e);
        }
    }

    /** The stored event, its request id first; a row that is not a JSON object goes as a string, to be refused. */
    private ObjectNode event(String payload, String requestId) {
        try {
            ObjectNode stored = (ObjectNode) json.readTree(payload);
            return requestId == null || stored.has("request_id")
                    ? stored // as written since the request id went into the payload: sent as it is
                    : json.createObjectNode().put("request_id", requestId).setAll(stored);
        } catch (IOException | ClassCastException e) {
            return json.createObjectNode().put("damaged_payload", payload);
        }
    }

    /** Removes accepted events in a local transaction: a JTA one took a sixth of the hand-off thread's time. */
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

    /** The failed events wait for their backoff (1 s doubling to 5 min). */
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
}
