package com.convplatform.hook.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.convplatform.crypto.testing.JsonExchanges;
import com.convplatform.testsupport.PostgresTestResource;
import com.convplatform.testsupport.StubServer;
import com.sun.net.httpserver.HttpExchange;

/**
 * The built jar, stopped by a signal while it holds deliveries to a slow receiver: with SIGTERM the attempts under way
 * end, the other leases are handed back at once and a second replica takes them within its poll; with SIGKILL they
 * wait for their lease to run out. Each run prints how long the held deliveries stayed out of reach. Both replicas
 * share one PostgreSQL database of their own (test-support's PostgresTestResource), so the rows can be read after a
 * replica is gone. Run after
 * {@code package}: {@code ./mvnw -pl hook-service verify -DskipITs=false -Dit.test=GracefulShutdownIT}.
 */
class GracefulShutdownIT {
    private static final String INTERNAL_KEY = "shutdown-it-internal-key";
    private static final String ACCOUNT = "shutdown-account";
    /** Enough that replica A still holds most of them once replica B has started (A sends 2 every 4 s). */
    private static final int EVENTS = 60;
    private static final int PER_ENDPOINT = 2;
    /**
     * The default: SIGKILL's wait. The attempts' settings below need 12 s of it, so a delivery that waited more than
     * 48 s for its endpoint's turn is given back unsent (and claimed again): that can happen here, at the end.
     */
    private static final Duration LEASE = Duration.ofSeconds(60);
    private static final Duration SLOW = Duration.ofSeconds(4);

    private static StubServer receiver;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static volatile long delayMillis;
    /** Delivery id per message id, for every request the receiver answered 200 (one entry per delivery). */
    private static final Map<Long, List<String>> RECEIVED = new ConcurrentHashMap<>();
    private static final AtomicInteger IN_FLIGHT = new AtomicInteger();

    @BeforeAll
    static void start() throws Exception {
        receiver = StubServer.http().route("/hooks/", GracefulShutdownIT::hook);
        receiver.route("/internal/v1/accounts/", ex -> JsonExchanges.respond(ex, 200, "{\"account_id\":\"" + ACCOUNT
                + "\",\"webhook_url\":\"" + receiver.url() + "/hooks/receive\"}"));
    }

    @AfterAll
    static void stop() {
        receiver.close();
    }

    @Test
    void sigtermHandsTheLeasesBackAtOnceWhereSigkillLeavesThemToExpire() throws Exception {
        Result term = run("term", false);
        Result kill = run("kill", true);
        System.out.printf("Held deliveries out of reach after the signal (%d events, receiver answering after %d ms,"
                + " lease %d s):%n  SIGTERM: A held %d; released after %d ms (%d finished, %d handed back), all taken"
                + " by B after %d ms, A gone after %d ms%n  SIGKILL: A held %d; claimable after %d ms (lease expiry),"
                + " all taken by B after %d ms%n  duplicates at the receiver: %d (SIGTERM), %d (SIGKILL)%n",
                EVENTS, SLOW.toMillis(), LEASE.toSeconds(), term.held, term.releasedMs, term.finished,
                term.handedBack, term.takenMs, term.exitMs, kill.held, kill.releasedMs, kill.takenMs, term.duplicates,
                kill.duplicates);
        assertTrue(term.releasedMs < SLOW.toMillis() + 3_000,
                "SIGTERM: the leases were handed back " + term.releasedMs + " ms after the signal");
        assertTrue(kill.releasedMs >= 5_000, "SIGKILL: the leases cannot run out before their time, yet the rows"
                + " were claimable " + kill.releasedMs + " ms after the kill");
        assertTrue(term.takenMs < kill.takenMs, "the other replica took over sooner after SIGTERM than after SIGKILL");
    }

    private record Result(int held, int finished, int handedBack, long releasedMs, long takenMs, long exitMs,
            int duplicates) {
    }

    /**
     * One run on a database of its own: replica A takes {@value #EVENTS} deliveries to a receiver that answers after
     * {@link #SLOW}, replica B is started once A holds them all, then A gets the signal.
     */
    private Result run(String name, boolean kill) throws Exception {
        RECEIVED.clear();
        delayMillis = SLOW.toMillis();
        PostgresTestResource.Database database = PostgresTestResource.create("shutdown_" + name);
        try (Connection db = DriverManager.getConnection(database.url(), database.user(),
                database.password() == null ? "" : database.password())) {
            Process a = replica(name + "-a", database);
            Process b = null;
            try {
                int portA = awaitReady(a, name + "-a");
                for (int i = 1; i <= EVENTS; i++) {
                    postEvent(portA, i);
                }
                // A holds every delivery not yet delivered (its own claims), PER_ENDPOINT of them under way.
                awaitTrue(Duration.ofSeconds(30), () -> count(db, "lease_owner is not null")
                        + delivered(db) == EVENTS && IN_FLIGHT.get() == PER_ENDPOINT,
                        "replica A never held all deliveries");
                String replicaA = replicaOf(db);
                b = replica(name + "-b", database);
                awaitReady(b, name + "-b");
                int held = countOwnedLive(db, replicaA);
                assertTrue(held > PER_ENDPOINT, "A still holds deliveries waiting for their turn: " + held);

                long signalled = System.nanoTime();
                if (kill) {
                    a.destroyForcibly(); // SIGKILL
                } else {
                    a.destroy(); // SIGTERM
                }
                long releasedMs = -1;
                long takenMs = -1;
                long exitMs = -1;
                long deadline = signalled + TimeUnit.SECONDS.toNanos(LEASE.toSeconds() + 20);
                while (System.nanoTime() < deadline && (releasedMs < 0 || takenMs < 0)) {
                    long now = System.nanoTime();
                    if (exitMs < 0 && !a.isAlive()) {
                        exitMs = ms(now - signalled);
                    }
                    // A's rows not yet delivered: under A's live lease, or out of it (free, expired, or B's)
                    int stillA = countOwnedLive(db, replicaA);
                    if (releasedMs < 0 && stillA == 0) {
                        releasedMs = ms(now - signalled);
                    }
                    if (takenMs < 0 && stillA == 0 && count(db, "lease_owner is null"
                            + " or lease_until <= current_timestamp") == 0) {
                        takenMs = ms(now - signalled); // every one not delivered is under B's lease by now
                    }
                    Thread.sleep(20);
                }
                assertTrue(releasedMs >= 0 && takenMs >= 0, name + ": A's deliveries were never taken over");
                assertTrue(a.waitFor(30, TimeUnit.SECONDS), name + ": replica A did not end");
                if (exitMs < 0) {
                    exitMs = ms(System.nanoTime() - signalled);
                }
                String logA = Files.readString(log(name + "-a"));
                int finished = 0;
                int handedBack = 0;
                if (!kill) {
                    // 143: the JVM's status after SIGTERM once its shutdown hooks (Quarkus's stop) have run
                    assertTrue(a.exitValue() == 143 || a.exitValue() == 0, "SIGTERM: an orderly stop");
                    var m = java.util.regex.Pattern.compile("Delivery stopped: (\\d+) deliveries were held; (\\d+)"
                            + " attempts ended within hook.delivery.shutdown-grace \\(PT15S\\); (\\d+) leases handed"
                            + " back").matcher(logA);
                    assertTrue(m.find(), "SIGTERM: A logs what it finished and handed back:\n" + logA);
                    finished = Integer.parseInt(m.group(2));
                    handedBack = Integer.parseInt(m.group(3));
                    assertEquals(Integer.parseInt(m.group(1)), finished + handedBack,
                            "every delivery A held was either finished or handed back");
                    assertTrue(finished <= PER_ENDPOINT && handedBack > 0,
                            "only the attempts under way were finished, the rest handed back: " + m.group());
                } else {
                    assertFalse(logA.contains("Delivery stopped"), "SIGKILL: no orderly stop");
                }

                // Nothing lost: B delivers every event once the receiver is quick again.
                delayMillis = 0;
                awaitTrue(Duration.ofSeconds(60), () -> delivered(db) == EVENTS,
                        name + ": not every delivery was delivered");
                for (long id = 1; id <= EVENTS; id++) {
                    assertTrue(RECEIVED.containsKey(id), name + ": message " + id + " never arrived");
                    assertEquals(1, new HashSet<>(RECEIVED.get(id)).size(),
                            name + ": every copy of a hook carries the same delivery id");
                }
                int duplicates = RECEIVED.values().stream().mapToInt(l -> l.size() - 1).sum();
                if (!kill) {
                    assertEquals(0, duplicates, "SIGTERM: the attempts under way ended, so nothing was sent twice");
                    assertEquals(EVENTS, countAttempts(db), "SIGTERM: one attempt per delivery, none cut off");
                }
                return new Result(held, finished, handedBack, releasedMs, takenMs, exitMs, duplicates);
            } finally {
                a.destroyForcibly();
                if (b != null) {
                    b.destroy();
                    b.waitFor(30, TimeUnit.SECONDS);
                    b.destroyForcibly();
                }
            }
        } finally {
            PostgresTestResource.drop(database);
        }
    }

    private static long ms(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    /**
     * Starts the built artifact as a replica on a free port, with a data directory of its own, logging to target/: the
     * native executable when one was built (the native workflow), else the jar.
     */
    private Process replica(String name, PostgresTestResource.Database database) throws IOException {
        Path runner = Paths.get(System.getProperty("native.image.path", "target/no-native-executable"));
        Path jar = Paths.get("target", "quarkus-app", "quarkus-run.jar");
        boolean nativeRun = Files.isExecutable(runner);
        assertTrue(nativeRun || Files.exists(jar), "build the jar first (" + jar.toAbsolutePath() + ")");
        System.out.println("  replica " + name + ": " + (nativeRun ? "native executable " + runner : "jar " + jar));
        Path data = Files.createTempDirectory("hook-shutdown-" + name);
        int port;
        int managementPort;
        try (ServerSocket s = new ServerSocket(0); ServerSocket m = new ServerSocket(0)) {
            port = s.getLocalPort();
            managementPort = m.getLocalPort();
        }
        String java = ProcessHandle.current().info().command().orElse("java");
        // the jar with C1 only: a quicker start on a busy machine
        ProcessBuilder pb = nativeRun
                ? new ProcessBuilder(runner.toString(), "-Xmx256m")
                : new ProcessBuilder(java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-jar", jar.toString());
        Map<String, String> env = pb.environment();
        env.put("QUARKUS_HTTP_PORT", String.valueOf(port));
        env.put("QUARKUS_MANAGEMENT_PORT", String.valueOf(managementPort)); // two replicas at once: not 9082 each
        env.put("QUARKUS_DATASOURCE_JDBC_URL", database.url());
        env.put("QUARKUS_DATASOURCE_USERNAME", database.user());
        if (database.password() != null) {
            env.put("QUARKUS_DATASOURCE_PASSWORD", database.password());
        }
        env.put("HOOK_DATA_DIR", data.toString());
        env.put("HOOK_INTERNAL_API_KEY", INTERNAL_KEY);
        env.put("HOOK_ADMIN_API_KEY", "shutdown-it-operator-key");
        env.put("HOOK_MANAGEMENT_URL", receiver.url());
        env.put("HOOK_MANAGEMENT_INTERNAL_API_KEY", "unused");
        env.put("HOOK_DELIVERY_ALLOW_PRIVATE_NETWORKS", "true");
        env.put("HOOK_SIGNING_DEVELOPMENT_CA", "true");
        env.put("HOOK_DELIVERY_PER_ENDPOINT", String.valueOf(PER_ENDPOINT));
        env.put("HOOK_DELIVERY_CONNECT_TIMEOUT", "PT1S");
        env.put("HOOK_DELIVERY_READ_TIMEOUT", "PT5S");
        env.put("HOOK_DELIVERY_LEASE", LEASE.toString());
        pb.redirectErrorStream(true).redirectOutput(log(name).toFile());
        PORTS.put(name, port);
        MANAGEMENT_PORTS.put(name, managementPort);
        return pb.start();
    }

    private static final Map<String, Integer> PORTS = new HashMap<>();
    private static final Map<String, Integer> MANAGEMENT_PORTS = new HashMap<>();

    private static Path log(String name) {
        return Paths.get("target", "shutdown-it-" + name + ".log");
    }

    private static int awaitReady(Process p, String name) throws Exception {
        int port = PORTS.get(name);
        awaitTrue(Duration.ofSeconds(90), () -> {
            assertTrue(p.isAlive(), name + " ended at start; its log: " + log(name).toAbsolutePath());
            try {
                return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + MANAGEMENT_PORTS.get(name)
                        + "/q/health/ready")).build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
            } catch (IOException e) {
                return false;
            }
        }, name + " was not ready; its log: " + log(name).toAbsolutePath());
        return port;
    }

    private static void postEvent(int port, long messageId) throws Exception {
        String event = "{\"account_id\":\"" + ACCOUNT + "\",\"user_id\":\"u1\",\"conversation_number\":1,"
                + "\"message_body\":\"{\\\"text\\\":\\\"m" + messageId + "\\\",\\\"type\\\":\\\"TEXT\\\"}\","
                + "\"message_id\":" + messageId + ",\"sender\":\"user\",\"timestamp\":\"" + Instant.now()
                + "\",\"metadata\":{}}";
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + "/internal/v1/events")).header("Authorization", "Bearer " + INTERNAL_KEY)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(event)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(202, r.statusCode(), r.body());
    }

    /** The receiver: answers 200 after the current delay, recording the hook's message id and delivery id. */
    private static void hook(HttpExchange ex) throws IOException {
        IN_FLIGHT.incrementAndGet();
        try (InputStream in = ex.getRequestBody()) {
            String body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            Thread.sleep(delayMillis); // plays a slow receiver
            var m = java.util.regex.Pattern.compile("\"message_id\":(\\d+)").matcher(body);
            assertTrue(m.find(), body);
            RECEIVED.computeIfAbsent(Long.parseLong(m.group(1)), k -> new java.util.concurrent.CopyOnWriteArrayList<>())
                    .add(ex.getRequestHeaders().getFirst("X-Hook-Delivery-Id"));
            JsonExchanges.respond(ex, 200, "{}");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            IN_FLIGHT.decrementAndGet();
        }
    }

    private static int count(Connection db, String where) throws SQLException {
        try (Statement s = db.createStatement();
                ResultSet r = s.executeQuery("select count(*) from delivery_queue where " + where)) {
            r.next();
            return r.getInt(1);
        }
    }

    private static int delivered(Connection db) throws SQLException {
        try (Statement s = db.createStatement();
                ResultSet r = s.executeQuery("select count(*) from delivery_history where status = 'DELIVERED'")) {
            r.next();
            return r.getInt(1);
        }
    }

    /** The replica id in the lease owners ({@code <replica>:<claim number>}) while one replica holds them all. */
    private static String replicaOf(Connection db) throws SQLException {
        Set<String> replicas = new HashSet<>();
        try (Statement s = db.createStatement();
                ResultSet r = s.executeQuery("select lease_owner from delivery_queue where lease_owner is not null")) {
            while (r.next()) {
                replicas.add(r.getString(1).substring(0, r.getString(1).indexOf(':')));
            }
        }
        assertEquals(1, replicas.size(), "one replica holds the leases");
        return replicas.iterator().next();
    }

    /** Deliveries still under a live lease of one of this replica's claims. */
    private static int countOwnedLive(Connection db, String replica) throws SQLException {
        return count(db, "lease_until > current_timestamp and lease_owner like '"
                + replica.replace("'", "''") + ":%'");
    }

    private static int countAttempts(Connection db) throws SQLException {
        try (Statement s = db.createStatement();
                ResultSet r = s.executeQuery("select count(*) from delivery_attempt")) {
            r.next();
            return r.getInt(1);
        }
    }

    interface Check {
        boolean ok() throws Exception;
    }

    private static void awaitTrue(Duration atMost, Check check, String message) throws Exception {
        long deadline = System.nanoTime() + atMost.toNanos();
        while (!check.ok()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(message);
            }
            Thread.sleep(50);
        }
    }
}
