package com.convplatform.load.upload;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import com.convplatform.crypto.testing.Http1Connection;
import com.convplatform.crypto.testing.LoadMeasure;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Load test of a running upload-service (run by {@code upload-service/load-test/run.sh}, never by the build). This
 * program plays management-service's JWKS and hook-service's intake on loopback ({@link PlatformStubs} on a fixed
 * port), registers a user, and then, with W workers each sending one upload after another:
 * <ol>
 * <li>warms the service up with 100 KB uploads for {@code warmup} seconds of load, given the way the measured rounds
 * give it: half in one phase, the rest in phases of {@code seconds} each after a ceiling phase (below), each phase on
 * connections of its own, opened at its start and closed at its end, the service idle in between. A warm-up of one
 * long phase had left the JIT compiler busy in the measured rounds: opening and closing connections and waking from
 * idle took the event loop's compiled code down paths it had not seen, the compiler threw that code away and compiled
 * it again, and for the first round or two the service ran partly on less optimised code (-XX:+PrintCompilation:
 * 51 compiled methods thrown away at the start of the first measured phase, JFR: class-check deoptimisations; async-profiler: the compiler a quarter of the service's CPU
 * after the warm-up). The ceiling's copy server gets its warm-up in the same phases;</li>
 * <li>for 100 KB and for 5 MB files, in rounds (3 by default): the ceiling first, once the service has handed every
 * upload so far on to the intake (so it is idle), a bare loopback HTTP server that copies each request body to a file
 * on the same disk (no parsing, no checks, no database), then the service, with the same request bytes, the same
 * client and the same workers. Uploads/s, MB/s of file bytes, p50/p99, errors, and service MB/s / ceiling MB/s per
 * round and their median; where /proc can be read (Linux, {@code servicePid} given), also the CPU time per upload of
 * the service and of this program in each phase, which, unlike a rate, does not move when the machine does. This
 * machine's disk and CPU vary by a factor of two within minutes; a ratio taken from phases that follow each other,
 * several times over, is what one run can say honestly;</li>
 * <li>memory: 20 uploads of 10 MiB (the largest allowed) at once; all must succeed (run.sh caps the service's heap at
 * 128 MB for the whole run);</li>
 * <li>checks: one stored file of each size downloads byte for byte, every accepted upload reached the intake, and
 * none reached it twice or had a call fail (the stand-in refuses nothing).</li>
 * </ol>
 * Exits with status 1 if any upload failed or a check did not hold.
 * <p>
 * System properties: {@code base} (http://127.0.0.1:18083), {@code opsBase} (http://127.0.0.1:19083: its management
 * interface, where the metrics are read), {@code operatorKey}, {@code stubPort} (18183),
 * {@code servicePid} (the service's process, for its CPU time; run.sh gives it), {@code serviceFiles} (its file
 * store's directory, emptied after each service phase; run.sh gives it), {@code workers} (8),
 * {@code rounds} (3), {@code seconds} (10), {@code warmup} (60), {@code sizes} (the file sizes measured, bytes,
 * comma-separated: 100000,5000000), {@code heap} (what run.sh gave the service, for the report).
 */
public final class UploadLoadTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String BOUNDARY = "load-test-boundary-7c1f";
    private static final int SMALL = 100_000;
    private static final int LARGE = 5_000_000;
    private static final int MAX = 10 * 1024 * 1024;
    private static final int CONCURRENT_MAX = 20;
    /** The service's file store directory (run.sh gives it), emptied after each measured service phase. */
    private static final Path SERVICE_FILES = System.getProperty("serviceFiles") == null
            ? null
            : Path.of(System.getProperty("serviceFiles"));

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;
    /** The service's process, for its CPU time per phase (0: not measured). */
    private final long servicePid = Long.getLong("servicePid", 0);
    private final String token = PlatformStubs.token();
    private boolean failed;

    private UploadLoadTest(String base) {
        this.base = base;
    }

    /**
     * What one phase measured. {@code serviceCpu} and {@code generatorCpu} are the CPU seconds the service's process
     * and this program's process (clients, and the ceiling's copy server or the intake stand-in) used in it; -1 where
     * they could not be read.
     */
    record Phase(String label, long ok, long errors, double seconds, long fileBytes, long[] latencies,
            String firstError, double serviceCpu, double generatorCpu) {
        double perSecond() {
            return ok / seconds;
        }

        /** CPU milliseconds per upload of both processes together, or -1. */
        double cpuMsPerUpload() {
            return serviceCpu < 0 || generatorCpu < 0 || ok == 0 ? -1 : (serviceCpu + generatorCpu) * 1000 / ok;
        }

        double mbPerSecond() {
            return fileBytes / seconds / 1e6;
        }
    }

    public static void main(String[] args) throws Exception {
        String base = System.getProperty("base", "http://127.0.0.1:18083");
        int workers = Integer.getInteger("workers", 8);
        int seconds = Integer.getInteger("seconds", 10);
        int warmup = Integer.getInteger("warmup", 60);
        int rounds = Integer.getInteger("rounds", 3);
        int[] sizes = Arrays.stream(System.getProperty("sizes", SMALL + "," + LARGE).split(","))
                .mapToInt(v -> Integer.parseInt(v.trim())).toArray();
        PlatformStubs.startOn(Integer.getInteger("stubPort", 18183));
        UploadLoadTest test = new UploadLoadTest(base);
        test.registerUser(System.getProperty("operatorKey", "load-test-operator-key"));
        System.out.printf(Locale.ROOT,
                "upload-service load test: %d workers, %d rounds of %d s per phase, %d s warm-up,"
                        + " %d cores, service heap %s%n",
                workers, rounds, seconds, warmup, Runtime.getRuntime().availableProcessors(),
                System.getProperty("heap", "(not given)"));

        Path sinkDir = Files.createTempDirectory("upload-ceiling");
        try (BareSink sink = new BareSink(sinkDir)) {
            byte[] warmupBody = multipart(png(SMALL));
            int firstWarmup = Math.max(1, warmup - warmup / 2 / seconds * seconds);
            long accepted = test.run("warm-up", test.serviceUpload(warmupBody), SMALL, workers, firstWarmup).ok();
            truncateAll(SERVICE_FILES);
            for (int left = warmup - firstWarmup; left > 0; left -= seconds) {
                test.awaitHandOff(accepted);
                settle();
                test.run("warm-up ceiling", sink.request(warmupBody), SMALL, workers, seconds);
                sink.emptyFiles();
                settle();
                accepted += test.run("warm-up", test.serviceUpload(warmupBody), SMALL, workers, seconds).ok();
                truncateAll(SERVICE_FILES);
            }
            List<String> rows = new ArrayList<>();
            List<String> summary = new ArrayList<>();
            for (int size : sizes) {
                byte[] body = multipart(png(size));
                List<Double> ratios = new ArrayList<>();
                List<Double> ceilingCpu = new ArrayList<>();
                List<Double> serviceCpu = new ArrayList<>();
                for (int round = 1; round <= rounds; round++) {
                    // The service hands each upload on after answering; let it finish that before the ceiling is
                    // measured on the same cores, so that neither run pays for the other's work.
                    test.awaitHandOff(accepted);
                    settle();
                    Phase ceiling = test.run("ceiling", sink.request(body), size, workers, seconds);
                    sink.emptyFiles();
                    settle();
                    Phase service = test.run("service", test.serviceUpload(body), size, workers, seconds);
                    accepted += service.ok();
                    // The service's stored files are emptied like the ceiling's (a full run stores 80 GB and more,
                    // which filled the build machine's disk); their inodes stay, so no later phase pays for them.
                    truncateAll(SERVICE_FILES);
                    double ratio = service.mbPerSecond() / ceiling.mbPerSecond();
                    ratios.add(ratio);
                    ceilingCpu.add(ceiling.cpuMsPerUpload());
                    serviceCpu.add(service.cpuMsPerUpload());
                    String suffix = rounds > 1 ? " (round " + round + ")" : "";
                    rows.add(row(size, ceiling, suffix));
                    rows.add(row(size, service, suffix));
                    rows.add(String.format(Locale.ROOT, "| %s | service MB/s / ceiling MB/s%s = %.2f | | | | | |",
                            label(size), suffix, ratio));
                    test.failed |= service.errors() > 0 || ceiling.errors() > 0;
                }
                summary.add(String.format(Locale.ROOT, "%s: service MB/s / ceiling MB/s, median of %d rounds = %.2f"
                        + " (rounds: %s)", label(size), rounds, median(ratios),
                        ratios.stream()
                                .map(r -> String.format(Locale.ROOT, "%.2f", r)).collect(Collectors.joining(", "))));
                if (median(ceilingCpu) > 0 && median(serviceCpu) > 0) {
                    summary.add(String.format(Locale.ROOT, "%s: CPU per upload of both processes, median of %d rounds:"
                            + " ceiling %.3f ms, service phase %.3f ms (%.1f times the ceiling's)", label(size),
                            rounds, median(ceilingCpu), median(serviceCpu), median(serviceCpu) / median(ceilingCpu)));
                }
            }
            System.out.println();
            System.out.println("| file | run | uploads/s | MB/s | p50 ms | p99 ms | errors |");
            System.out.println("|---|---|---|---|---|---|---|");
            rows.forEach(System.out::println);
            System.out.println();
            summary.forEach(System.out::println);
            System.out.println();
            accepted += test.concurrentMaximumUploads();
            test.checkDownloads();
            test.checkHandOff(accepted);
        } finally {
            deleteAll(sinkDir);
            Files.deleteIfExists(sinkDir);
            new PlatformStubs().stop();
        }
        System.out
                .println(test.failed ? "RESULT: FAILED (see above)" : "RESULT: all uploads succeeded, all checks held");
        System.exit(test.failed ? 1 : 0);
    }

    private void registerUser(String operatorKey) throws Exception {
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(base + "/admin/v1/users"))
                .header("Authorization", "Bearer " + operatorKey).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"auth_id\":\"loaduser\",\"business_id\":\"1001\"}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 201 && r.statusCode() != 409) {
            throw new IllegalStateException("registering the user: HTTP " + r.statusCode() + " " + r.body());
        }
    }

    /** The same upload as one java.net.http request, for the single uploads of the memory phase and the checks. */
    private HttpRequest serviceRequest(byte[] body) {
        Upload u = serviceUpload(body);
        HttpRequest.Builder b = HttpRequest.newBuilder(u.url()).timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofByteArray(u.body()));
        u.headers().forEach(b::header);
        return b.build();
    }

    /** One kind of request the workers send: where, with which headers, which bytes. */
    record Upload(URI url, Map<String, String> headers, byte[] body) {
    }

    private Upload serviceUpload(byte[] body) {
        return new Upload(URI.create(base + "/v1.0/log_file_from_user/"), Map.of("Authorization", "Bearer " + token,
                "client-id", "client-1", "Content-Type", "multipart/form-data; boundary=" + BOUNDARY), body);
    }

    /**
     * W workers, each on its own keep-alive connection ({@link Http1Connection}: far less of the shared CPU than
     * java.net.http), send {@code upload} one after another for {@code seconds}.
     */
    private Phase run(String label, Upload upload, int fileSize, int workers, int seconds) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        double serviceCpu0 = cpuSeconds(servicePid);
        double jitCpu0 = jitCpuSeconds(servicePid);
        double generatorCpu0 = cpuSeconds(ProcessHandle.current().pid());
        long postgresCpu0 = com.convplatform.load.PostgresCpu.nanos();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        AtomicLong errors = new AtomicLong();
        StringBuffer firstError = new StringBuffer();
        List<Future<long[]>> futures = new ArrayList<>();
        System.out.printf(Locale.ROOT, "(%s %s: %d s, from %s)%n", label, label(fileSize), seconds,
                LocalTime.now().withNano(0));
        long start = System.nanoTime();
        for (int w = 0; w < workers; w++) {
            futures.add(pool.submit(() -> {
                long[] lat = new long[1024];
                int n = 0;
                @SuppressWarnings("resource") // closed when the worker ends
                Http1Connection connection = new Http1Connection(upload.url(), 60_000);
                String path = upload.url().getRawPath();
                while (System.nanoTime() < end) {
                    long t0 = System.nanoTime();
                    try {
                        Http1Connection.Response r = connection.post(path, upload.headers(), upload.body());
                        if (r.status() != 200) {
                            throw new IOException("HTTP " + r.status() + " " + r.text());
                        }
                        if (n == lat.length) {
                            lat = Arrays.copyOf(lat, n * 2);
                        }
                        lat[n++] = System.nanoTime() - t0;
                    } catch (IOException e) {
                        if (errors.getAndIncrement() == 0) {
                            firstError.append(e.getMessage());
                        }
                    }
                }
                connection.close();
                return Arrays.copyOf(lat, n);
            }));
        }
        List<long[]> all = new ArrayList<>();
        for (Future<long[]> f : futures) {
            all.add(f.get());
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        double serviceCpu = cpuSeconds(servicePid) - serviceCpu0;
        double jitCpu = jitCpuSeconds(servicePid) - jitCpu0;
        double generatorCpu = cpuSeconds(ProcessHandle.current().pid()) - generatorCpu0;
        long postgresCpu = com.convplatform.load.PostgresCpu.nanos() - postgresCpu0;
        pool.shutdown();
        long[] latencies = all.stream().flatMapToLong(Arrays::stream).toArray();
        Phase p = new Phase(label, latencies.length, errors.get(), elapsed, (long) latencies.length * fileSize,
                latencies, firstError.toString(), serviceCpu0 < 0 ? -1 : serviceCpu,
                generatorCpu0 < 0 ? -1 : generatorCpu);
        System.out.printf(Locale.ROOT,
                "%-8s %-9s %8.1f uploads/s %8.1f MB/s  p50 %7.1f ms  p99 %7.1f ms  errors %d%s%s%n",
                label, label(fileSize), p.perSecond(), p.mbPerSecond(), LoadMeasure.percentileMs(latencies, 0.50),
                LoadMeasure.percentileMs(latencies, 0.99), p.errors(),
                p.errors() > 0 ? " (first: " + p.firstError() + ")" : "",
                p.cpuMsPerUpload() < 0
                        ? ""
                        : String.format(Locale.ROOT,
                                "%n         CPU per upload %.3f ms: service %.3f (its JIT compiler %.3f), this program"
                                        + " (clients, %s) %.3f; PostgreSQL %s",
                                p.cpuMsPerUpload(), p.serviceCpu() * 1000 / p.ok(), jitCpu * 1000 / p.ok(),
                                label.contains("ceiling") ? "copy server" : "intake stand-in",
                                p.generatorCpu() * 1000 / p.ok(), postgresCpu0 < 0
                                        ? "-"
                                        : String.format(Locale.ROOT, "%.3f", postgresCpu / 1e6 / Math.max(1, p.ok()))));
        return p;
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        return sorted.size() % 2 == 1
                ? sorted.get(sorted.size() / 2)
                : (sorted.get(sorted.size() / 2 - 1) + sorted.get(sorted.size() / 2)) / 2;
    }

    /**
     * CPU seconds a process has used so far, from /proc/PID/stat (utime and stime, in the USER_HZ ticks of 1/100 s
     * that Linux reports there); -1 where that cannot be read (another system, or no PID given).
     */
    static double cpuSeconds(long pid) {
        if (pid <= 0) {
            return -1;
        }
        try {
            return statCpuSeconds(Path.of("/proc/" + pid + "/stat"));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** utime plus stime of a /proc stat file (process or thread), in seconds. */
    private static double statCpuSeconds(Path stat) throws IOException {
        String line = Files.readString(stat);
        String[] fields = line.substring(line.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / 100.0;
    }

    /**
     * CPU seconds the JIT compiler threads of a JVM have used so far (from /proc/PID/task, the threads HotSpot names
     * "C1 CompilerThre..." and "C2 CompilerThre..."), 0 where that cannot be read. A compiler still busy in a measured
     * phase means the warm-up did not bring the service to its steady state.
     */
    static double jitCpuSeconds(long pid) {
        if (pid <= 0) {
            return 0;
        }
        double total = 0;
        try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path task : tasks.toList()) {
                try {
                    String name = Files.readString(task.resolve("comm")).trim();
                    if (name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre")) {
                        total += statCpuSeconds(task.resolve("stat"));
                    }
                } catch (IOException | RuntimeException gone) {
                    // the thread ended meanwhile
                }
            }
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        return total;
    }

    private static String row(int size, Phase p, String suffix) {
        return String.format(Locale.ROOT, "| %s | %s%s | %.1f | %.1f | %.1f | %.1f | %d |", label(size), p.label(),
                suffix,
                p.perSecond(), p.mbPerSecond(), LoadMeasure.percentileMs(p.latencies(), 0.50),
                LoadMeasure.percentileMs(p.latencies(), 0.99), p.errors());
    }

    private static String label(int size) {
        return size == SMALL
                ? "100 KB"
                : size == LARGE ? "5 MB" : size % (1024 * 1024) == 0 ? size / 1024 / 1024 + " MiB" : size + " bytes";
    }

    /** 20 uploads of the largest allowed file at once; returns how many succeeded. */
    private long concurrentMaximumUploads() throws Exception {
        HttpRequest request = serviceRequest(multipart(png(MAX)));
        ExecutorService pool = Executors.newFixedThreadPool(CONCURRENT_MAX);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<String>> answers = new ArrayList<>();
        for (int i = 0; i < CONCURRENT_MAX; i++) {
            answers.add(pool.submit(() -> {
                go.await();
                try {
                    HttpResponse<String> r = client.send(request, HttpResponse.BodyHandlers.ofString());
                    return r.statusCode() == 200 ? null : "HTTP " + r.statusCode() + " " + r.body();
                } catch (IOException e) {
                    return e.toString();
                }
            }));
        }
        long t0 = System.nanoTime();
        go.countDown();
        long ok = 0;
        String firstError = null;
        for (Future<String> f : answers) {
            String error = f.get();
            if (error == null) {
                ok++;
            } else if (firstError == null) {
                firstError = error;
            }
        }
        pool.shutdown();
        System.out.printf(Locale.ROOT, "memory: %d concurrent uploads of 10 MiB: %d succeeded in %.1f s (service heap"
                + " %s)%s%n", CONCURRENT_MAX, ok, (System.nanoTime() - t0) / 1e9, System.getProperty("heap", "?"),
                firstError == null ? "" : "; first failure: " + firstError);
        failed |= ok != CONCURRENT_MAX;
        return ok;
    }

    /** One upload of each size is stored and served byte for byte. */
    private void checkDownloads() throws Exception {
        for (int size : new int[]{SMALL, LARGE, MAX}) {
            byte[] content = png(size);
            HttpResponse<String> r = client.send(serviceRequest(multipart(content)),
                    HttpResponse.BodyHandlers.ofString());
            JsonNode answer = JSON.readTree(r.body());
            String url = answer.path("file_url").asText();
            byte[] served = client.send(HttpRequest.newBuilder(URI.create(url)).build(),
                    HttpResponse.BodyHandlers.ofByteArray()).body();
            boolean same = r.statusCode() == 200 && Arrays.equals(content, served);
            System.out.printf(Locale.ROOT, "check: a %s upload downloads byte for byte: %s%n", label(size),
                    same ? "yes" : "NO (HTTP " + r.statusCode() + ")");
            failed |= !same;
        }
    }

    /** Waits (at most 2 minutes) until the intake stand-in has {@code expected} events; whether it has. */
    private boolean awaitHandOff(long expected) throws InterruptedException {
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (PlatformStubs.EVENTS.size() < expected && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        return PlatformStubs.EVENTS.size() >= expected;
    }

    /** Every accepted upload (plus the three of the download check) reaches the intake stand-in. */
    private void checkHandOff(long accepted) throws InterruptedException {
        boolean all = awaitHandOff(accepted + 3);
        System.out.printf(Locale.ROOT, "check: every upload (warm-up included) handed on to the hook intake: %s (%d"
                + " accepted, %d events in %d batch calls and %d single calls)%n", all ? "yes" : "NO", accepted + 3,
                PlatformStubs.EVENTS.size(), PlatformStubs.BATCH_CALLS.get(), PlatformStubs.SINGLE_CALLS.get());
        failed |= !all;
        // The stand-in answers every call at once and refuses nothing: a failed post, and with it an event sent twice,
        // means the service lost an answer (as it did when its HTTP client attached the body step too late).
        long twice = PlatformStubs.EVENTS.size() - new HashSet<>(PlatformStubs.EVENTS).size();
        String counters = handOffCounters();
        boolean clean = twice == 0 && counters.contains("upload_handoff_failed_total 0.0");
        System.out.printf(Locale.ROOT, "check: no hand-off call failed and no event arrived twice: %s (%d arrived more"
                + " than once; the service's counters: %s)%n", clean ? "yes" : "NO", twice, counters);
        failed |= !clean;
    }

    /** The service's hand-off counters (upload_handoff_* from /q/metrics), or why they could not be read. */
    private String handOffCounters() {
        try {
            String ops = System.getProperty("opsBase", "http://127.0.0.1:19083");
            String metrics = client.send(HttpRequest.newBuilder(URI.create(ops + "/q/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            return metrics.lines().filter(l -> l.startsWith("upload_handoff_") || l.startsWith("upload_outbox_"))
                    .collect(Collectors.joining(", "));
        } catch (IOException | InterruptedException e) {
            return "not read (" + e + ")";
        }
    }

    /** A PNG signature followed by random bytes: passes the content check for {@code .png}. */
    static byte[] png(int size) {
        byte[] b = new byte[size];
        new Random(size).nextBytes(b);
        System.arraycopy(new byte[]{(byte) 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A}, 0, b, 0, 8);
        return b;
    }

    static byte[] multipart(byte[] file) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(file.length + 1024);
        for (String[] field : new String[][]{{"auth_id", "loaduser"}, {"business_id", "1001"}, {"message_type", "1"},
                {"message_body", "load test"}}) {
            out.write(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"" + field[0] + "\"\r\n\r\n"
                    + field[1] + "\r\n").getBytes(StandardCharsets.US_ASCII));
        }
        out.write(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"load.png\"\r\n"
                + "Content-Type: image/png\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(file);
        out.write(("\r\n--" + BOUNDARY + "--\r\n").getBytes(StandardCharsets.US_ASCII));
        return out.toByteArray();
    }

    /**
     * Writes every dirty page to disk before a measured phase. Each phase writes gigabytes (the ceiling 10 GB and more
     * at 100 KB); without this the next phase shares the cores and the disk with the kernel writing back the last
     * one's files. Where {@code sync} is missing the phase runs without it.
     */
    private static void settle() throws InterruptedException {
        try {
            new ProcessBuilder("sync").inheritIO().start().waitFor();
        } catch (IOException e) {
            System.out.println("note: could not run sync (" + e.getMessage() + "); phases may share write-back");
        }
    }

    /** Truncates every file in {@code dir} to nothing (see {@link BareSink}); a missing directory holds none. */
    static void truncateAll(Path dir) throws IOException {
        if (dir == null || !Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> written = Files.list(dir)) {
            for (Path f : written.toList()) {
                try (FileChannel c = FileChannel.open(f, StandardOpenOption.WRITE)) {
                    c.truncate(0);
                }
            }
        }
    }

    private static void deleteAll(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir).filter(f -> !f.equals(dir))) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        }
    }

    /**
     * The ceiling: an HTTP/1.1 server on loopback that copies each request body, as it arrives, to a new file and
     * answers 200. One thread per connection, keep-alive, no parsing of the body.
     * <p>
     * Each phase writes to a directory of its own, and its files are emptied after it rather than deleted (they are
     * deleted at the end of the run). After a mass deletion, ext4's inode allocator steps over every inode deleted in
     * the last minutes for each new file: on the build machine that took up to half of the next phases' CPU, the
     * service's as much as the ceiling's. Emptying a file frees its blocks and keeps its inode.
     */
    static final class BareSink implements AutoCloseable {
        private final ServerSocket server;
        private final Path root;
        private final AtomicLong files = new AtomicLong();
        private final ExecutorService connections = Executors.newCachedThreadPool();
        private volatile Path dir;

        BareSink(Path root) throws IOException {
            this.root = root;
            this.dir = root;
            this.server = new ServerSocket(0, 64, InetAddress.getLoopbackAddress());
            connections.submit(this::accept);
        }

        /** The ceiling's request for this body; the files of the phase that sends it go to a new directory. */
        Upload request(byte[] body) throws IOException {
            dir = Files.createTempDirectory(root, "phase-");
            return new Upload(URI.create("http://127.0.0.1:" + server.getLocalPort() + "/sink"),
                    Map.of("Content-Type", "multipart/form-data; boundary=" + BOUNDARY), body);
        }

        /** Truncates the last phase's files to nothing: frees their blocks, keeps their inodes. */
        void emptyFiles() throws IOException {
            truncateAll(dir);
        }

        private void accept() {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    s.setTcpNoDelay(true);
                    connections.submit(() -> serve(s));
                } catch (IOException closed) {
                    return;
                }
            }
        }

        private void serve(Socket socket) {
            byte[] buffer = new byte[64 * 1024];
            try (socket;
                    InputStream in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
                    OutputStream out = socket.getOutputStream()) {
                while (true) {
                    long length = headers(in);
                    if (length < 0) {
                        return;
                    }
                    try (OutputStream file = Files.newOutputStream(dir.resolve("body-" + files.incrementAndGet()))) {
                        for (long left = length; left > 0;) {
                            int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
                            if (n < 0) {
                                return;
                            }
                            file.write(buffer, 0, n);
                            left -= n;
                        }
                    }
                    out.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
                            .getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                }
            } catch (IOException e) {
                // the client closed the connection
            }
        }

        /** Reads a request head; returns its Content-Length, or -1 at the end of the connection. */
        private static long headers(InputStream in) throws IOException {
            long length = -1;
            StringBuilder line = new StringBuilder();
            for (int c; (c = in.read()) >= 0;) {
                if (c == '\n') {
                    String l = line.toString().trim();
                    if (l.isEmpty()) {
                        return Math.max(length, 0);
                    }
                    if (l.regionMatches(true, 0, "content-length:", 0, 15)) {
                        length = Long.parseLong(l.substring(15).trim());
                    }
                    line.setLength(0);
                } else {
                    line.append((char) c);
                }
            }
            return -1;
        }

        @Override
        public void close() throws IOException {
            server.close();
            connections.shutdownNow();
        }
    }
}
