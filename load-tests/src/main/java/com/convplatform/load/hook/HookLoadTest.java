package com.convplatform.load.hook;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.PublicKey;
import java.security.Signature;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.crypto.sig.CryptoProviders;
import com.convplatform.crypto.sig.SignatureAlgorithm;
import com.convplatform.crypto.testing.Http1Connection;
import com.convplatform.crypto.testing.JsonExchanges;
import com.convplatform.crypto.testing.LoadMeasure;
import com.convplatform.load.PostgresCpu;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * Load test of a running hook-service (run by {@code hook-service/load-test/run.sh}, never by the build). This
 * program plays management-service's account lookup and the accounts' receivers on loopback, drives events into
 * intake and counts the hooks that arrive.
 *
 * <p>
 * After a warm-up that runs every shape below in turn, it measures the machine's SHA256withRSA signing ceiling on all
 * cores (a 2048-bit key, as the service signs), then, for each shape (events per intake call, and intake calls in
 * flight at once: one worker with its own keep-alive connection per call in flight):
 * <ol>
 * <li>Saturation: the workers send events as fast as intake takes them for D seconds, spread over A accounts, while
 * at most a window of events is accepted and not yet delivered; then it waits until every accepted event has
 * arrived. Accepted/s, delivered/s (all deliveries over the time from the first intake to the last arrival),
 * intake-to-delivery p50/p99, and the service's CPU time per delivered hook.</li>
 * <li>Paced: events at half the rate the shape sustained at saturation, for D seconds (open loop: latency counts from
 * each event's scheduled send time, so a slow service cannot hide its queue), intake-to-delivery p50/p99, CPU per
 * hook.</li>
 * </ol>
 * and the ceiling once more at the end; the ratios use the mean of the two. The first hooks' signatures are checked
 * against the certificate the service publishes, so the figures are for real, verifiable hooks.
 *
 * <p>
 * System properties: {@code base} (http://127.0.0.1:18082), {@code opsBase} (http://127.0.0.1:19082: its management
 * interface, where the metrics are read), {@code internalKey}, {@code receiverPort} (18182: the
 * account lookup; the accounts' receivers on the ports after it),
 * {@code accounts} (8), {@code workers} (intake calls in flight, a list: 8,64), {@code batch} (events per call, a
 * list: 1,32; 1 posts each event to /internal/v1/events, more use /internal/v1/events/batch), {@code seconds} (15),
 * {@code warmup} (150), {@code servicePid} (the service's process, for its CPU time; none: not reported).
 */
public final class HookLoadTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int CHECKED_SIGNATURES = 50;

    private final Map<Long, Long> sentAt = new ConcurrentHashMap<>();
    private final AtomicLong delivered = new AtomicLong();
    private final AtomicLong lastArrival = new AtomicLong();
    private final AtomicInteger checked = new AtomicInteger();
    /**
     * At saturation, events accepted but not yet delivered: at most {@link #window(int, int)}. Intake takes events
     * much faster than they can be delivered (above all in batches), so an unbounded closed loop would measure intake
     * and leave a backlog for the next phase; the window keeps the service full and its queue bounded.
     */
    private final Semaphore window = new Semaphore(0);
    private volatile boolean windowed;
    private final AtomicLong badSignatures = new AtomicLong();
    private volatile long[] latencies = new long[0];
    private final AtomicInteger latencyCount = new AtomicInteger();
    private volatile PublicKey hookKey;
    private final int receiverPort;
    private final Optional<ProcessHandle> service;
    /** Events per intake call of the phase under way. */
    private volatile int batch = 1;

    private HookLoadTest(int receiverPort, Optional<ProcessHandle> service) {
        this.receiverPort = receiverPort;
        this.service = service;
    }

    /** One shape of intake load: events per call and calls in flight. */
    record Shape(int batch, int workers) {
        @Override
        public String toString() {
            return String.format("batch %d, %d in flight", batch, workers);
        }
    }

    public static void main(String[] args) throws Exception {
        String base = System.getProperty("base", "http://127.0.0.1:18082");
        String ops = System.getProperty("opsBase", "http://127.0.0.1:19082");
        String key = System.getProperty("internalKey", "load-test-internal-key");
        int receiverPort = Integer.getInteger("receiverPort", 18182);
        int accounts = Integer.getInteger("accounts", 8);
        int seconds = Integer.getInteger("seconds", 15);
        int warmup = Integer.getInteger("warmup", 150);
        List<Shape> shapes = new ArrayList<>();
        for (int b : ints(System.getProperty("batch", "1,32"))) {
            for (int w : ints(System.getProperty("workers", "8,64"))) {
                shapes.add(new Shape(b, w));
            }
        }
        Optional<ProcessHandle> service = Optional.ofNullable(System.getProperty("servicePid"))
                .filter(p -> !p.isBlank()).flatMap(p -> ProcessHandle.of(Long.parseLong(p.trim())));
        HookLoadTest t = new HookLoadTest(receiverPort, service);
        ExecutorService receiverPool = Executors.newFixedThreadPool(32);
        List<HttpServer> receivers = t.startReceivers(receiverPool, accounts);
        // HTTP/1.1: many connections, as many intake callers would open (not one multiplexed HTTP/2 connection).
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        try {
            t.hookKey = publishedKey(http, base);
            System.out.printf("hook-service load test: %s, %d accounts, %d s per phase, shapes %s%n", base, accounts,
                    seconds, shapes);
            // Warm-up: the JIT compiles the service's intake and delivery paths, for every shape. On two cores C2
            // keeps compiling for well over a minute of load; a short warm-up measures the compiler, not the service.
            System.out.printf("warming up for %d s%n", warmup);
            long id = 1_000_000_000L;
            for (Shape s : shapes) {
                t.saturate(base, key, accounts, s, Math.max(1, warmup / shapes.size()), id);
                id += 100_000_000L;
            }
            double ceilingBefore = ceiling(seconds);
            List<Phase[]> results = new ArrayList<>();
            for (Shape s : shapes) {
                Phase sat = t.saturate(base, key, accounts, s, seconds, id);
                id += 100_000_000L;
                // half the rate this shape sustains (its saturated rate), where the p99 goal holds
                Map<Double, Double> before = buckets(http, ops);
                double rate = Double.parseDouble(System.getProperty("pacedRate", "0"));
                Phase paced = t.paced(base, key, accounts, s, seconds, rate > 0 ? rate : sat.deliveredPerSecond / 2,
                        id);
                Map<Double, Double> after = buckets(http, ops);
                id += 100_000_000L;
                results.add(new Phase[]{sat, paced});
                System.out.printf("%s: delivered %.0f/s at saturation, p99 %.1f ms paced (the service's own"
                        + " hook_intake_to_delivery, from the commit of intake: p50 <= %s, p99 <= %s)%n", s,
                        sat.deliveredPerSecond, paced.p99, quantile(before, after, 0.5),
                        quantile(before, after, 0.99));
            }
            // Backlogs: built by intake faster than delivery, then drained; once more with one account's endpoint
            // disabled while it holds as many deliveries.
            int backlogSize = Integer.getInteger("backlog", 100_000);
            List<Backlog> backlogs = new ArrayList<>();
            double baseline = 0;
            if (backlogSize > 0) {
                int at = shapes.indexOf(BACKLOG_SHAPE);
                if (at < 0) {
                    baseline = t.saturate(base, key, accounts, BACKLOG_SHAPE, seconds, id).deliveredPerSecond;
                    id += 100_000_000L;
                } else {
                    baseline = results.get(at)[0].deliveredPerSecond;
                }
                backlogs.add(t.backlog(base, key, accounts, backlogSize, id, "no endpoint disabled", 0));
                id += 100_000_000L;
                long held = t.hold(http, base, key, HELD_ACCOUNT, backlogSize, id);
                id += 100_000_000L;
                backlogs.add(t.backlog(base, key, accounts, backlogSize, id,
                        "one endpoint disabled, holding " + held, held));
                id += 100_000_000L;
            }
            double ceilingAfter = ceiling(seconds);
            double ceiling = (ceilingBefore + ceilingAfter) / 2;
            double signatureMs = Runtime.getRuntime().availableProcessors() * 1000.0 / ceiling;

            System.out.printf("%nSHA256withRSA signing ceiling on %d cores: %.0f/s before the shapes, %.0f/s after,"
                    + " mean %.0f/s (%.2f ms of CPU per signature); each paced phase at half its shape's saturated"
                    + " rate%n", Runtime.getRuntime().availableProcessors(), ceilingBefore, ceilingAfter, ceiling,
                    signatureMs);
            System.out.printf("%n%-8s %-9s %-10s %10s %11s %6s %8s %8s %9s %9s %9s %9s %9s %7s%n", "batch",
                    "in flight", "phase", "accepted/s", "delivered/s", "ratio", "p50 ms", "p99 ms", "CPU ms/h",
                    "PG ms/h", "gen ms/h", "accepted", "delivered", "errors");
            for (int i = 0; i < shapes.size(); i++) {
                Shape s = shapes.get(i);
                results.get(i)[0].print(s, "saturated", ceiling);
                results.get(i)[1].print(s, "paced", ceiling);
            }
            System.out.printf("%nratio = delivered/s / mean ceiling (goal >= 0.60 at saturation); paced p99 goal"
                    + " < 100 ms; CPU ms/h = the service's CPU time per delivered hook (%s; goal <= 1.4 x), PG ms/h ="
                    + " PostgreSQL's processes' (goal <= 0.8 ms), gen ms/h = this program's (clients and receivers)%n",
                    service.isPresent() ? "signature alone " + String.format("%.2f ms", signatureMs) : "no servicePid");
            if (!backlogs.isEmpty()) {
                System.out.printf("%nBacklogs of %d pending deliveries, drained with the planner's statistics as they"
                        + " are (the database is new and never analysed; nothing runs ANALYZE); the rate without a"
                        + " backlog is the saturated phase of batch %d, %d in flight above (%.0f/s)%n", backlogSize,
                        BACKLOG_SHAPE.batch, BACKLOG_SHAPE.workers, baseline);
                System.out.printf("%-46s %9s %11s %7s %9s %9s %9s%n", "backlog", "pending", "drained/s",
                        "vs none", "CPU ms/h", "PG ms/h", "held");
                for (Backlog b : backlogs) {
                    b.print(baseline);
                }
                System.out.println("vs none = drained/s / the rate without a backlog (goal >= 0.90)");
            }
            System.out.printf("signatures checked against the published certificate: %d, bad: %d%n",
                    Math.min(t.checked.get(), CHECKED_SIGNATURES), t.badSignatures.get());
            String retried = metric(http, ops, "hook_deliveries_retried_total");
            System.out.printf("attempts retried (the receivers always answer 200, so each is a failed send): %s%n",
                    retried);
            if (Double.parseDouble(retried) > 0) {
                System.out.println("their errors (load-0, distinct): " + errors(http, base));
            }
        } finally {
            receivers.forEach(r -> r.stop(0));
            receiverPool.shutdownNow();
        }
    }

    /** The shape of the backlog phases: batches of 32 from 8 callers, as upload-service's replicas send them. */
    static final Shape BACKLOG_SHAPE = new Shape(32, 8);
    static final String HELD_ACCOUNT = "load-held";

    /** A backlog phase: how many were pending when intake stopped, and how fast they were drained. */
    record Backlog(String label, long pending, double drainedPerSecond, double serviceCpuMsPerHook,
            double postgresCpuMsPerHook, long held) {
        void print(double baseline) {
            System.out.printf("%-46s %9d %11.0f %7.2f %9s %9s %9d%n", label, pending, drainedPerSecond,
                    drainedPerSecond / baseline, Phase.ms(serviceCpuMsPerHook), Phase.ms(postgresCpuMsPerHook), held);
        }
    }

    /**
     * Intake in batches as fast as it takes them, with no window, until {@code target} accepted events are not yet
     * delivered; then intake stops and the backlog is drained. The drain rate counts the hooks delivered from the
     * moment intake stopped to the last one.
     */
    Backlog backlog(String base, String key, int accounts, int target, long idBase, String label, long held)
            throws Exception {
        reset(target * 3, BACKLOG_SHAPE.batch);
        windowed = false;
        AtomicLong next = new AtomicLong(idBase);
        AtomicLong errors = new AtomicLong();
        java.util.concurrent.atomic.AtomicBoolean building = new java.util.concurrent.atomic.AtomicBoolean(true);
        ExecutorService pool = Executors.newFixedThreadPool(BACKLOG_SHAPE.workers);
        List<Future<?>> fs = new ArrayList<>();
        for (int w = 0; w < BACKLOG_SHAPE.workers; w++) {
            fs.add(pool.submit(() -> {
                try (Http1Connection intake = new Http1Connection(URI.create(base), 30_000)) {
                    while (building.get()) {
                        sendCall(intake, key, accounts, next.getAndAdd(batch), System.nanoTime(), errors);
                    }
                }
                return null;
            }));
        }
        long buildDeadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
        long report = System.nanoTime();
        while (sentAt.size() - delivered.get() < target && System.nanoTime() < buildDeadline) {
            Thread.sleep(20);
            if (System.nanoTime() - report > 5_000_000_000L) {
                report = System.nanoTime();
                System.out.printf("  building the backlog: %d accepted, %d delivered, %d refused%n", sentAt.size(),
                        delivered.get(), errors.get());
            }
        }
        building.set(false);
        for (Future<?> f : fs) {
            f.get();
        }
        pool.shutdown();
        long accepted = sentAt.size();
        long start = System.nanoTime();
        long deliveredBefore = delivered.get();
        long pending = accepted - deliveredBefore;
        long[] cpu = cpu();
        long lost = awaitAll(accepted, 900);
        long[] after = cpu();
        long n = Math.max(1, delivered.get() - deliveredBefore);
        double seconds = (lastArrival.get() - start) / 1e9;
        if (lost > 0 || errors.get() > 0) {
            System.out.printf("backlog (%s): %d not delivered, %d refused at intake%n", label, lost, errors.get());
        }
        System.out.printf("backlog (%s): %d pending when intake stopped, drained at %.0f/s%n", label, pending,
                n / seconds);
        return new Backlog(label, pending, n / seconds, after[0] < 0 ? -1 : (after[0] - cpu[0]) / 1e6 / n,
                after[2] < 0 ? -1 : (after[2] - cpu[2]) / 1e6 / n, held);
    }

    /**
     * Disables {@code account}'s endpoint through the operator API and takes in {@code count} events for it, each
     * held at once; returns the deliveries held, as the operator API counts them.
     */
    long hold(HttpClient http, String base, String key, String account, int count, long idBase) throws Exception {
        String operator = "Bearer " + System.getProperty("operatorKey", "load-test-operator-key");
        http.send(HttpRequest.newBuilder(URI.create(base + "/admin/v1/accounts/" + account + "/endpoint/disable"))
                .header("Authorization", operator).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.discarding());
        ExecutorService pool = Executors.newFixedThreadPool(BACKLOG_SHAPE.workers);
        AtomicLong next = new AtomicLong(idBase);
        AtomicLong refused = new AtomicLong();
        List<Future<?>> fs = new ArrayList<>();
        for (int w = 0; w < BACKLOG_SHAPE.workers; w++) {
            fs.add(pool.submit(() -> {
                try (Http1Connection intake = new Http1Connection(URI.create(base), 30_000)) {
                    for (long first = next.getAndAdd(32); first < idBase + count; first = next.getAndAdd(32)) {
                        ObjectNode body = JSON.createObjectNode();
                        ArrayNode events = body.putArray("events");
                        for (long id = first; id < Math.min(first + 32, idBase + count); id++) {
                            events.add(event(account, id));
                        }
                        if (intake.post("/internal/v1/events/batch", Map.of("Authorization", "Bearer " + key,
                                "Content-Type", "application/json"), bytes(body)).status() != 200) {
                            refused.incrementAndGet();
                        }
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : fs) {
            f.get();
        }
        pool.shutdown();
        String state = http.send(HttpRequest.newBuilder(URI.create(base + "/admin/v1/accounts/" + account
                + "/endpoint")).header("Authorization", operator).build(), HttpResponse.BodyHandlers.ofString()).body();
        long held = JSON.readTree(state).path("held_deliveries").asLong();
        System.out.printf("%s: endpoint disabled, %d deliveries held (%d intake calls refused)%n", account, held,
                refused.get());
        return held;
    }

    private static List<Integer> ints(String list) {
        return java.util.Arrays.stream(list.split("[, ]+")).filter(x -> !x.isBlank()).map(Integer::valueOf).toList();
    }

    /** The machine's SHA256withRSA signatures per second on all cores. */
    private static double ceiling(int seconds) throws Exception {
        KeyPair rsa = KeyPairs.rsa(2048);
        byte[] sample = new byte[400];
        return LoadMeasure.ceiling(() -> {
            Signature s = CryptoProviders.recommended().signature(SignatureAlgorithm.SHA256_WITH_RSA);
            s.initSign(rsa.getPrivate());
            s.update(sample);
            s.sign();
        }, Math.max(3, seconds / 3));
    }

    /**
     * CPU time used so far by the service (-1 without its pid), by this program, and by PostgreSQL's processes (-1
     * where /proc cannot be read), in nanoseconds.
     */
    private long[] cpu() {
        long own = ProcessHandle.current().info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
        long svc = service.flatMap(h -> h.info().totalCpuDuration()).map(Duration::toNanos).orElse(-1L);
        return new long[]{svc, own, PostgresCpu.nanos()};
    }

    record Phase(long accepted, double acceptedPerSecond, long delivered, double deliveredPerSecond, double p50,
            double p99, long errors, long lost, double serviceCpuMsPerHook, double ownCpuMsPerHook,
            double postgresCpuMsPerHook) {
        void print(Shape shape, String name, double ceiling) {
            System.out.printf("%-8d %-9d %-10s %10.0f %11.0f %6.2f %8.1f %8.1f %9s %9s %9.2f %9d %9d %7d%s%n",
                    shape.batch, shape.workers, name, acceptedPerSecond, deliveredPerSecond,
                    deliveredPerSecond / ceiling, p50, p99, ms(serviceCpuMsPerHook), ms(postgresCpuMsPerHook),
                    ownCpuMsPerHook, accepted, delivered, errors, lost == 0 ? "" : "  NOT DELIVERED: " + lost);
        }

        static String ms(double v) {
            return v < 0 ? "-" : String.format("%.2f", v);
        }
    }

    private void reset(int capacity, int eventsPerCall) {
        batch = eventsPerCall;
        sentAt.clear();
        delivered.set(0);
        latencies = new long[capacity];
        latencyCount.set(0);
    }

    /** The window of a saturation phase: room for two rounds of every worker's call, and at least 1 024 events. */
    private static int window(int workers, int batch) {
        return Math.max(1024, 2 * workers * batch);
    }

    /**
     * The shape's workers, closed loop, as fast as intake answers while at most {@link #window} events are
     * undelivered. Message ids start at {@code idBase}.
     */
    Phase saturate(String base, String key, int accounts, Shape shape, int seconds, long idBase) throws Exception {
        reset(4_000_000, shape.batch);
        window.drainPermits();
        window.release(window(shape.workers, shape.batch));
        windowed = true;
        AtomicLong next = new AtomicLong(idBase);
        AtomicLong errors = new AtomicLong();
        long[] cpu = cpu();
        long start = System.nanoTime();
        long end = start + seconds * 1_000_000_000L;
        ExecutorService pool = Executors.newFixedThreadPool(shape.workers);
        List<Future<?>> fs = new ArrayList<>();
        for (int w = 0; w < shape.workers; w++) {
            fs.add(pool.submit(() -> {
                try (Http1Connection intake = new Http1Connection(URI.create(base), 30_000)) {
                    while (System.nanoTime() < end) {
                        if (!window.tryAcquire(batch, 100, TimeUnit.MILLISECONDS)) {
                            continue;
                        }
                        if (!sendCall(intake, key, accounts, next.getAndAdd(batch), System.nanoTime(), errors)) {
                            window.release(batch);
                        }
                    }
                }
                return null;
            }));
        }
        return finish(pool, fs, start, cpu, errors);
    }

    /** Open loop at {@code rate} events per second, each worker on its own fixed schedule. */
    Phase paced(String base, String key, int accounts, Shape shape, int seconds, double rate, long idBase)
            throws Exception {
        reset((int) (rate * seconds * 2) + 1000, shape.batch);
        windowed = false;
        AtomicLong next = new AtomicLong(idBase);
        AtomicLong errors = new AtomicLong();
        long[] cpu = cpu();
        long start = System.nanoTime();
        long end = start + seconds * 1_000_000_000L;
        long interval = (long) (1e9 * shape.workers * shape.batch / rate);
        ExecutorService pool = Executors.newFixedThreadPool(shape.workers);
        List<Future<?>> fs = new ArrayList<>();
        for (int w = 0; w < shape.workers; w++) {
            long offset = interval * w / shape.workers;
            fs.add(pool.submit(() -> {
                try (Http1Connection intake = new Http1Connection(URI.create(base), 30_000)) {
                    for (long due = start + offset; due < end; due += interval) {
                        long wait = due - System.nanoTime();
                        if (wait > 0) {
                            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                        }
                        sendCall(intake, key, accounts, next.getAndAdd(batch), due, errors);
                    }
                }
                return null;
            }));
        }
        return finish(pool, fs, start, cpu, errors);
    }

    /** Waits for the intake workers, then for the hooks, and sums up the phase that began at {@code start}. */
    private Phase finish(ExecutorService pool, List<Future<?>> workers, long start, long[] cpuAtStart,
            AtomicLong errors) throws Exception {
        for (Future<?> f : workers) {
            f.get();
        }
        pool.shutdown();
        double intakeSeconds = (System.nanoTime() - start) / 1e9;
        long accepted = sentAt.size();
        long lost = awaitAll(accepted, 120);
        long[] cpu = cpu();
        double deliverySeconds = (lastArrival.get() - start) / 1e9;
        long n = Math.max(1, delivered.get());
        double serviceMs = cpu[0] < 0 ? -1 : (cpu[0] - cpuAtStart[0]) / 1e6 / n;
        double postgresMs = cpu[2] < 0 ? -1 : (cpu[2] - cpuAtStart[2]) / 1e6 / n;
        return new Phase(accepted, accepted / intakeSeconds, delivered.get(), delivered.get() / deliverySeconds,
                p(0.50), p(0.99), errors.get(), lost, serviceMs, (cpu[1] - cpuAtStart[1]) / 1e6 / n, postgresMs);
    }

    /** Waits up to {@code seconds} for every accepted event to arrive; returns how many did not. */
    private long awaitAll(long accepted, int seconds) throws InterruptedException {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (delivered.get() < accepted && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        return Math.max(0, accepted - delivered.get());
    }

    private double p(double q) {
        long[] l = java.util.Arrays.copyOf(latencies, Math.min(latencies.length, latencyCount.get()));
        return LoadMeasure.percentileMs(l, q);
    }

    /**
     * One intake call with the events {@code first} to {@code first + batch - 1}, sent at {@code sent}; false when
     * any was not accepted (counted as errors, and none of the call's events is waited for).
     */
    private boolean sendCall(Http1Connection intake, String key, int accounts, long first, long sent,
            AtomicLong errors) {
        for (long id = first; id < first + batch; id++) {
            sentAt.put(id, sent);
        }
        int refused = batch == 1 ? send(intake, key, accounts, first) : sendBatch(intake, key, accounts, first);
        if (refused > 0) {
            for (long id = first; id < first + batch; id++) {
                sentAt.remove(id);
            }
            errors.addAndGet(refused);
        }
        return refused == 0;
    }

    /** The metadata every event carries (shared by the events' trees, which are only written, never changed). */
    private static final ObjectNode METADATA = JSON.createObjectNode().put("channel", "load");

    /**
     * Event {@code id} as intake takes it; message_body is a JSON text in a string, as chat messages arrive. A few
     * small nodes per event: cheap next to the call that sends it.
     */
    private static ObjectNode event(int accounts, long id) {
        return event("load-" + (id % accounts), id);
    }

    private static ObjectNode event(String account, long id) {
        ObjectNode event = JSON.createObjectNode();
        event.put("account_id", account);
        event.put("user_id", "u" + (id % 1000));
        event.put("conversation_number", id % 97);
        event.put("message_body",
                JSON.createObjectNode().put("text", "load test message " + id).put("type", "TEXT").toString());
        event.put("message_id", id);
        event.put("sender", "user");
        event.put("timestamp", Instant.now().toString());
        event.set("metadata", METADATA);
        return event;
    }

    private static byte[] bytes(ObjectNode body) {
        try {
            return JSON.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One event to intake over the worker's keep-alive connection (a cheap client: it shares the cores); 1 if refused. */
    private static int send(Http1Connection intake, String key, int accounts, long id) {
        try {
            return intake.post("/internal/v1/events",
                    Map.of("Authorization", "Bearer " + key, "Content-Type", "application/json"),
                    bytes(event(accounts, id))).status() == 202 ? 0 : 1;
        } catch (IOException e) {
            return 1;
        }
    }

    /** {@code batch} events in one batch intake call; the number not accepted (all when the call failed). */
    private int sendBatch(Http1Connection intake, String key, int accounts, long first) {
        ObjectNode body = JSON.createObjectNode();
        ArrayNode events = body.putArray("events");
        for (long id = first; id < first + batch; id++) {
            events.add(event(accounts, id));
        }
        try {
            Http1Connection.Response r = intake.post("/internal/v1/events/batch",
                    Map.of("Authorization", "Bearer " + key, "Content-Type", "application/json"),
                    bytes(body));
            if (r.status() != 200) {
                return batch;
            }
            int accepted = 0;
            for (com.fasterxml.jackson.databind.JsonNode result : JSON.readTree(r.body()).get("results")) {
                accepted += result.get("status").asInt() == 202 ? 1 : 0;
            }
            return batch - accepted;
        } catch (IOException e) {
            return batch;
        }
    }

    /**
     * management-service's account lookup on {@code receiverPort}, and each account's receiver on a port of its own
     * (receiverPort + 1 + its number), as each account's web service is a server of its own: hook-service keeps
     * {@code per-endpoint} connections to each, so one port for all would have shared four connections among all.
     */
    private List<HttpServer> startReceivers(ExecutorService pool, int accounts) throws IOException {
        List<HttpServer> out = new ArrayList<>();
        HttpServer lookup = HttpServer.create(new InetSocketAddress("127.0.0.1", receiverPort), 256);
        lookup.setExecutor(pool);
        lookup.createContext("/internal/v1/accounts/", ex -> {
            String id = ex.getRequestURI().getPath().substring("/internal/v1/accounts/".length());
            int n = id.startsWith("load-") && id.substring(5).chars().allMatch(Character::isDigit)
                    ? Integer.parseInt(id.substring(5)) % accounts
                    : 0;
            JsonExchanges.respond(ex, 200, JSON.createObjectNode().put("account_id", id)
                    .put("webhook_url", "http://127.0.0.1:" + (receiverPort + 1 + n) + "/hooks/" + id).toString());
        });
        lookup.start();
        out.add(lookup);
        for (int i = 0; i < accounts; i++) {
            HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", receiverPort + 1 + i), 256);
            s.setExecutor(pool);
            s.createContext("/hooks/", this::hook);
            s.start();
            out.add(s);
        }
        return out;
    }

    private void hook(HttpExchange ex) throws IOException {
        long now = System.nanoTime();
        byte[] body = ex.getRequestBody().readAllBytes();
        String text = new String(body, StandardCharsets.UTF_8);
        int at = text.indexOf("\"message_id\":") + "\"message_id\":".length();
        int stop = at;
        while (stop < text.length() && Character.isDigit(text.charAt(stop))) {
            stop++;
        }
        Long sent = sentAt.get(Long.parseLong(text.substring(at, stop)));
        if (sent != null) {
            int i = latencyCount.getAndIncrement();
            long[] l = latencies;
            if (i < l.length) {
                l[i] = now - sent;
            }
            delivered.incrementAndGet();
            lastArrival.accumulateAndGet(now, Math::max);
            if (windowed) {
                window.release();
            }
        }
        if (checked.get() < CHECKED_SIGNATURES && checked.incrementAndGet() <= CHECKED_SIGNATURES) {
            try {
                Signature v = CryptoProviders.recommended().signature(SignatureAlgorithm.SHA256_WITH_RSA);
                v.initVerify(hookKey);
                v.update(body);
                if (!v.verify(Base64.getDecoder().decode(ex.getRequestHeaders().getFirst("signature")))) {
                    badSignatures.incrementAndGet();
                }
            } catch (Exception e) {
                badSignatures.incrementAndGet();
            }
        }
        JsonExchanges.respond(ex, 200, "{}");
    }

    private static PublicKey publishedKey(HttpClient http, String base) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/platform/hooks/certificate/"))
                .build(), HttpResponse.BodyHandlers.ofString());
        String pem = JSON.readTree(r.body()).get("certificate").asText();
        return Pem.parseCertificates(pem).get(0).getPublicKey();
    }

    /** The service's hook_intake_to_delivery histogram: upper bound (seconds) to cumulative count. */
    private static Map<Double, Double> buckets(HttpClient http, String ops) throws Exception {
        String text = http.send(HttpRequest.newBuilder(URI.create(ops + "/q/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        Map<Double, Double> out = new java.util.TreeMap<>();
        for (String l : text.lines().filter(l -> l.startsWith("hook_intake_to_delivery_seconds_bucket")).toList()) {
            String le = l.substring(l.indexOf("le=\"") + 4, l.indexOf('"', l.indexOf("le=\"") + 4));
            out.put(le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le),
                    Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)));
        }
        return out;
    }

    /** The bucket bound under which the quantile q of the hooks delivered between two scrapes fell, as "25 ms". */
    private static String quantile(Map<Double, Double> before, Map<Double, Double> after, double q) {
        double total = after.getOrDefault(Double.POSITIVE_INFINITY, 0.0)
                - before.getOrDefault(Double.POSITIVE_INFINITY, 0.0);
        for (Map.Entry<Double, Double> b : after.entrySet()) {
            if (b.getValue() - before.getOrDefault(b.getKey(), 0.0) >= q * total) {
                return b.getKey().isInfinite() ? "+Inf" : String.format("%.0f ms", b.getKey() * 1000);
            }
        }
        return "-";
    }

    /** A counter from the service's Prometheus metrics, "0" when it has not been incremented yet. */
    private static String metric(HttpClient http, String ops, String name) throws Exception {
        String text = http.send(HttpRequest.newBuilder(URI.create(ops + "/q/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        return text.lines().filter(l -> l.startsWith(name)).map(l -> l.substring(l.lastIndexOf(' ') + 1)).findFirst()
                .orElse("0");
    }

    /** The distinct last errors of account load-0's deliveries, from the operator API. */
    private static java.util.Set<String> errors(HttpClient http, String base) throws Exception {
        String body = http.send(
                HttpRequest.newBuilder(URI.create(base + "/admin/v1/deliveries?account_id=load-0&limit=1000"))
                        .header("Authorization",
                                "Bearer " + System.getProperty("operatorKey", "load-test-operator-key"))
                        .build(),
                HttpResponse.BodyHandlers.ofString()).body();
        java.util.Set<String> out = new java.util.TreeSet<>();
        for (com.fasterxml.jackson.databind.JsonNode d : JSON.readTree(body)) {
            if (d.hasNonNull("last_error")) {
                out.add(d.get("last_error").asText().replaceAll("[0-9a-f-]{36}", "<id>"));
            }
        }
        return out;
    }
}
