package com.convplatform.upload.handoff;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import com.convplatform.support.RepeatedFailures;
import com.convplatform.upload.config.UploadConfig;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.scheduler.Scheduled;

/**
 * Hands outbox events on to hook-service, at least once (README, "Storage and hand-off"): {@link #handOn} right after
 * the commit, from its own thread, for events written claimed by this process
 * ({@link OutboxRepository#insertClaimed}, due after {@link OutboxRepository#LEASE}), and a poll; drained on shutdown.
 */
@ApplicationScoped
public class OutboxSender {
    static final int BATCH = 32;
    private static final Logger LOG = Logger.getLogger(OutboxSender.class);
    /** How long a batch may fill: without it 46 601 calls carried 295 045 events under load; at 5 ms, 19 a call. */
    private static final long LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long FILL_STEP_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    /**
     * The oldest event the hand-off thread still posts from memory: a post (three tries of 12 s) then ends within the
     * event's lease ({@link OutboxRepository#LEASE}, from its commit). An older one, queued behind a slow hook-service,
     * is left to a poll after its lease, which reads the outbox again: an erasure (upload.erasure.second-pass-after,
     * two leases after it removed the row) can then count on no post of an erased event reaching hook-service later.
     */
    static final Duration DIRECT_MAX_AGE = OutboxRepository.LEASE.minusSeconds(40);

    private final OutboxRepository outbox;
    private final HandoffPoster poster;
    private final Counter sentCounter;
    private final Counter failedCounter;
    private final Counter releasedOnShutdown;
    private final Duration shutdownGrace;
    private final Duration pollInterval;
    /** A poll that fails (the database out of reach) is tried again every poll interval: warned of once a minute. */
    private final RepeatedFailures pollFailures;
    private final ArrayBlockingQueue<Claimed> direct = new ArrayBlockingQueue<>(4096); // committed, to hand on
    private volatile boolean running = true;
    private Thread directSender;
    /** Held by a poll while it claims and posts: the shutdown waits for it (up to the grace). */
    private final ReentrantLock polling = new ReentrantLock();
    /** Events hook-service accepted after the shutdown began. */
    private final AtomicInteger sentWhileStopping = new AtomicInteger();
    private Drained drained;

    OutboxSender(MeterRegistry metrics, OutboxRepository outbox, HandoffPoster poster, UploadConfig config) {
        this.outbox = outbox;
        this.poster = poster;
        this.shutdownGrace = config.hookService().shutdownGrace();
        this.pollInterval = config.hookService().pollInterval();
        this.pollFailures = new RepeatedFailures(LOG, "Polling the outbox",
                Counter.builder("upload.outbox.poll.failures")
                        .description(
                                "Polls of the outbox that failed (the database out of reach): events wait meanwhile")
                        .register(metrics));
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
            boolean more = true;
            while (running && more) {
                List<Claimed> batch = claim();
                more = !batch.isEmpty() && deliver(batch);
                pollFailures.succeeded();
            }
        } catch (RuntimeException e) {
            pollFailures.failed(e, "the outbox's events (kept, none lost) wait until a poll works, tried every "
                    + pollInterval);
        } finally {
            polling.unlock();
        }
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
            released = outbox.releaseHeld();
        } catch (RuntimeException e) {
            LOG.errorf(e, "Handing back this replica's outbox events failed; other replicas send them once their"
                    + " lease (%s) runs out", OutboxRepository.LEASE);
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

    private void sendHandedOn() {
        List<Claimed> batch = new ArrayList<>(BATCH);
        while (running) {
            try {
                Claimed first = direct.poll(200, TimeUnit.MILLISECONDS);
                if (first != null) {
                    batch.add(first);
                    fill(batch, System.nanoTime() + LINGER_NANOS);
                    batch.removeIf(tooOld(Instant.now()));
                    if (!batch.isEmpty()) {
                        deliver(batch);
                    }
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

    /** Events that waited in memory past {@link #DIRECT_MAX_AGE}: a poll sends them once their lease is over. */
    static java.util.function.Predicate<Claimed> tooOld(Instant now) {
        Instant oldest = now.minus(DIRECT_MAX_AGE);
        return c -> c.storedAt().isBefore(oldest);
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
        List<String> errors = poster.post(batch);
        List<String> sent = new ArrayList<>();
        Map<String, String> failed = new LinkedHashMap<>();
        for (int i = 0; i < batch.size(); i++) {
            if (errors.get(i) == null) {
                sent.add(batch.get(i).id());
            } else {
                failed.put(batch.get(i).id(), errors.get(i));
            }
        }
        outbox.remove(sent);
        if (!failed.isEmpty()) {
            outbox.recordFailures(batch.stream().filter(c -> failed.containsKey(c.id())).toList(), failed);
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

    /** Claims up to {@value #BATCH} due events under a lease of this replica. */
    List<Claimed> claim() {
        return outbox.claim(BATCH);
    }
}
