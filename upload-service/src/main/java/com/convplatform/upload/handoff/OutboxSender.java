package com.convplatform.upload.handoff;

import java.io.IOException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
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

import javax.sql.DataSource;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.faulttolerance.exceptions.FaultToleranceException;
import org.jboss.logging.Logger;

import com.convplatform.api.intake.IntakeEvent;
import com.convplatform.support.LeaseQueue;
import com.convplatform.support.LocalTransaction;
import com.convplatform.support.TraceContexts;
import com.convplatform.upload.config.UploadConfig;
import com.fasterxml.jackson.databind.ObjectMapper;

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
    /** The outbox table's lease engine (service-support's, as hook-service's queue). */
    private final LeaseQueue queue = new LeaseQueue("hook_outbox", "true",
            "t.id, t.payload, t.request_id, t.traceparent, t.stored_at, t.attempts");
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
        Gauge.builder("upload.outbox.pending", this::pending)
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

    /**
     * A lease under which the upload's transaction writes its new event, so no poll takes it while {@link #handOn}
     * sends it.
     */
    public String newLease() {
        return queue.owner();
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

    /**
     * Every unsent event this process still holds: free for any replica's poll at once (due when it was). The outbox
     * holds only what waits, so it is read whole, once per shutdown.
     */
    private int releaseHeld() {
        return queue.releaseOwned(dataSource, clock.instant());
    }

    private long pending() {
        return LocalTransaction.run(dataSource, "Counting the outbox", c -> {
            try (PreparedStatement s = c.prepareStatement("select count(*) from hook_outbox");
                    ResultSet r = s.executeQuery()) {
                r.next();
                return r.getLong(1);
            }
        });
    }

    /** The queue of the outbox, for its vacuum. */
    public LeaseQueue queue() {
        return queue;
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
            recordFailures(batch.stream().filter(c -> failed.containsKey(c.id())).toList(), failed);
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
        List<IntakeEvent> events = new ArrayList<>(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            IntakeEvent event = batch.get(i).event();
            String traceparent = TraceContexts.of(spans.get(i).getSpanContext());
            events.add(traceparent == null ? event : event.withBatchFields(event.requestId(), traceparent));
        }
        try (Scope ignored = spans.get(0).makeCurrent()) {
            List<String> errors = intake.postBatch(events);
            return errors != null ? errors : postEach(events, spans);
        } catch (IOException | FaultToleranceException e) {
            return Collections.nCopies(batch.size(), e.getMessage());
        }
    }

    /** One call per event (no batch intake, or a batch too large), the request id and trace context as headers only. */
    private List<String> postEach(List<IntakeEvent> events, List<Span> spans) {
        List<String> out = new ArrayList<>(events.size());
        for (int i = 0; i < events.size(); i++) {
            IntakeEvent event = events.get(i);
            try (Scope ignored = spans.get(i).makeCurrent()) {
                out.add(intake.postOne(event.withBatchFields(null, null), event.requestId()));
            } catch (IOException | FaultToleranceException e) {
                out.add(e.getMessage());
            }
        }
        return out;
    }

    /** A claimed event; attempt 1 is the first post; {@code leaseOwner}: the lease it is held under. */
    public record Claimed(String id, IntakeEvent event, String traceparent, Instant storedAt, int attempt,
            String leaseOwner) {
    }

    /** Claims up to {@value #BATCH} due events under a lease of this replica (service-support's LeaseQueue). */
    List<Claimed> claim() {
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        List<Claimed> claimed = LocalTransaction.run(dataSource, "Claiming hand-off events",
                c -> queue.claim(c, now, now.plus(LEASE), BATCH, (r, owner, until) -> {
                    OffsetDateTime storedAt = r.getObject(5, OffsetDateTime.class);
                    return new Claimed(r.getString(1), event(r.getString(2), r.getString(3)), r.getString(4),
                            storedAt == null ? null : storedAt.toInstant(), r.getInt(6) + 1, owner);
                }));
        return claimed;
    }

    /**
     * The stored event with its row's request id (rows written before the request id went into the payload lack it). A
     * row that is not an event goes without its fields, for hook-service to refuse (MISSING_FIELD): the failure is
     * recorded on the row.
     */
    private IntakeEvent event(String payload, String requestId) {
        try {
            IntakeEvent stored = json.readValue(payload, IntakeEvent.class);
            return requestId == null || stored.requestId() != null
                    ? stored
                    : stored.withBatchFields(requestId, stored.traceparent());
        } catch (IOException e) {
            return new IntakeEvent(null, null, null, null, null, null, null, null, null, null);
        }
    }

    /**
     * Removes accepted events in a local transaction (a JTA one took a sixth of the hand-off thread's time), by the
     * lease engine's guarded delete.
     */
    private void removeSent(List<String> sent) {
        if (sent.isEmpty()) {
            return;
        }
        List<UUID> ids = sent.stream().map(UUID::fromString).toList();
        LocalTransaction.run(dataSource, "Removing sent hand-off events", c -> queue.remove(c, ids));
    }

    private static final String RECORD_FAILURE = "update hook_outbox set attempts = ?, next_attempt_at = ?,"
            + " last_error = ?, lease_owner = null, lease_until = null where id = ? and lease_owner = ?";

    /** The failed events wait for their backoff (1 s doubling to 5 min), their leases given up. */
    void recordFailures(List<Claimed> events, Map<String, String> errors) {
        Instant now = clock.instant();
        LocalTransaction.run(dataSource, "Recording failed hand-offs", c -> {
            LeaseQueue.guardPlans(c); // by the key, whatever the statistics say
            try (PreparedStatement s = c.prepareStatement(RECORD_FAILURE)) {
                for (Claimed e : events) {
                    String error = errors.get(e.id());
                    long wait = Math.min(300, 1L << Math.min(e.attempt() - 1, 9));
                    LocalTransaction
                            .bind(s, e.attempt(), OffsetDateTime.ofInstant(now.plusSeconds(wait), ZoneOffset.UTC),
                                    error.length() > 1000 ? error.substring(0, 1000) : error, UUID.fromString(e.id()),
                                    e.leaseOwner())
                            .addBatch();
                }
                return s.executeBatch();
            }
        });
    }
}
