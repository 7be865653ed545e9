package com.convplatform.hook;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;

import com.convplatform.api.Contracts;
import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.crypto.testing.JsonExchanges;
import com.convplatform.crypto.testing.TestPki;
import com.convplatform.testsupport.StubServer;
import com.sun.net.httpserver.HttpExchange;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * The world around hook-service in the tests: a signing key and chain issued by a test CA (as an operator would
 * mount from a secret), a fake management-service answering account lookups, and a receiver on loopback that records
 * every hook and answers as each test tells it to.
 */
public class HookPlatformResource implements QuarkusTestResourceLifecycleManager {
    public static final String CERT_HOST = "hooks.platform.example";
    public static final String UNKNOWN_ACCOUNT = "unknown-account";
    /**
     * Accounts whose id starts with this have an HTTPS webhook named by {@link #TLS_HOST}, a name no DNS knows: the
     * service reaches it through the seams {@code hook.delivery.resolve} and {@code hook.delivery.trust-store}.
     */
    public static final String TLS_ACCOUNT_PREFIX = "tls-";
    public static final String TLS_HOST = "hooks.receiver.test";
    public static StubServer tlsServer;
    /**
     * Names no DNS knows, each resolving (seam {@code hook.delivery.resolve}) to eight loopback addresses, for tests
     * that put listeners there which never answer (BlackHoleWebhookTest); {@link #WEBHOOKS} points an account at them.
     */
    public static final String BLACK_HOLE_HOST = "black-holes.test";
    public static final List<String> BLACK_HOLE_ADDRESSES = addresses(11, 8);
    public static final String SILENT_HOST = "silent.test";
    public static final List<String> SILENT_ADDRESSES = addresses(21, 8);
    /** Webhook URLs per account that the account lookup answers instead of the receiver's. */
    public static final Map<String, String> WEBHOOKS = new ConcurrentHashMap<>();

    private static List<String> addresses(int first, int n) {
        return java.util.stream.IntStream.range(first, first + n).mapToObj(i -> "127.0.0." + i).toList();
    }

    /** One received hook. */
    public record Received(Map<String, List<String>> headers, byte[] body, long atNanos) {
        public String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name)).findFirst()
                    .map(e -> e.getValue().get(0)).orElse(null);
        }
    }

    /** A scripted answer: status, optional delay and optional Retry-After. */
    public record Answer(int status, long delayMs, String retryAfter) {
    }

    /** The account of platform-api's recorded lookup answer, which the fake answers word for word. */
    public static final String RECORDED_ACCOUNT = "3d0f7a2e-8c41-4b59-a6e2-1f9b8c7d6e5a";
    public static TestPki pki;
    public static StubServer server;
    public static final Map<String, List<Received>> RECEIVED = new ConcurrentHashMap<>();
    public static final Map<String, ConcurrentLinkedQueue<Answer>> SCRIPT = new ConcurrentHashMap<>();
    /** Scripted answers of management-service's account lookup, per account: status and delay; 200 once they run out. */
    public static final Map<String, ConcurrentLinkedQueue<Answer>> LOOKUP_SCRIPT = new ConcurrentHashMap<>();
    /** Account lookups that reached management-service, per account. */
    public static final Map<String, java.util.concurrent.atomic.AtomicInteger> LOOKUPS = new ConcurrentHashMap<>();

    public static int lookups(String accountId) {
        return LOOKUPS.computeIfAbsent(accountId, k -> new java.util.concurrent.atomic.AtomicInteger()).get();
    }

    /** When each account lookup reached management-service ({@link System#nanoTime()}), per account. */
    public static final Map<String, List<Long>> LOOKUP_TIMES = new ConcurrentHashMap<>();

    public static List<Long> lookupTimes(String accountId) {
        return LOOKUP_TIMES.computeIfAbsent(accountId, k -> new CopyOnWriteArrayList<>());
    }

    /** Account lookups held (not answered) until the test counts their latch down, at most 4 s (the read time-out 5 s). */
    public static final Map<String, java.util.concurrent.CountDownLatch> LOOKUP_HOLDS = new ConcurrentHashMap<>();

    /** Holds the account's lookups until the returned latch is counted down: its deliveries stay in flight meanwhile. */
    public static java.util.concurrent.CountDownLatch holdLookups(String accountId) {
        return LOOKUP_HOLDS.computeIfAbsent(accountId, k -> new java.util.concurrent.CountDownLatch(1));
    }

    /** The traceparent header of the last account lookup per account. */
    public static final Map<String, String> LOOKUP_TRACEPARENTS = new ConcurrentHashMap<>();

    public static String baseUrl() {
        return server.url();
    }

    public static final Map<String, java.util.concurrent.atomic.AtomicInteger> IN_FLIGHT = new ConcurrentHashMap<>();
    public static final Map<String, java.util.concurrent.atomic.AtomicInteger> MOST_IN_FLIGHT = new ConcurrentHashMap<>();

    /** The most hooks of an account the receiver was handling at the same time. */
    public static int mostInFlight(String accountId) {
        return MOST_IN_FLIGHT.computeIfAbsent(accountId, k -> new java.util.concurrent.atomic.AtomicInteger()).get();
    }

    /** Hooks of an account held at the receiver until this many of them are in flight at once: see {@link #holdUntilInFlight}. */
    public static final Map<String, InFlightGate> GATES = new ConcurrentHashMap<>();

    /** Opened once {@code inFlight} hooks of the account are at the receiver at the same time; never closed again. */
    public record InFlightGate(int inFlight, java.util.concurrent.CountDownLatch open) {
    }

    /**
     * Holds every hook of the account at the receiver, unanswered, until {@code n} of them are in flight at once (at
     * most 30 s, then each is answered anyway); from then on its hooks are answered as scripted. So that {@code n} at
     * once is seen however slowly they come, and a sender that keeps no limit is seen sending more while they are held.
     * The hooks' read time-out (hook.delivery.read-timeout) must outlast the 30 s.
     */
    public static void holdUntilInFlight(String accountId, int n) {
        GATES.put(accountId, new InFlightGate(n, new java.util.concurrent.CountDownLatch(1)));
    }

    public static List<Received> received(String accountId) {
        return RECEIVED.computeIfAbsent(accountId, k -> new CopyOnWriteArrayList<>());
    }

    /** Answers for the next hooks of an account, in order; 200 once they run out. */
    public static void script(String accountId, Answer... answers) {
        SCRIPT.computeIfAbsent(accountId, k -> new ConcurrentLinkedQueue<>()).addAll(List.of(answers));
    }

    @Override
    public Map<String, String> start() {
        try {
            pki = TestPki.create();
            KeyPair signing = KeyPairs.rsa(2048);
            TestPki.Leaf leaf = pki.leaf(signing, CERT_HOST);
            Path dir = Files.createTempDirectory("hook-signing");
            Path key = dir.resolve("key.pem");
            Path chain = dir.resolve("chain.pem");
            Files.writeString(key, Pem.toPem(signing.getPrivate()));
            Files.writeString(chain, Pem.toPem(leaf.chain()));
            server = StubServer.http().route("/internal/v1/accounts/", HookPlatformResource::account)
                    .route("/hooks/", HookPlatformResource::hook);
            tlsServer = StubServer.https(pki.serverContext(TLS_HOST)).route("/hooks/", HookPlatformResource::hook);
            Path receiverCa = dir.resolve("receiver-ca.pem");
            Files.writeString(receiverCa, Pem.toPem(pki.root));
            List<String> resolve = new java.util.ArrayList<>(List.of(TLS_HOST + "=127.0.0.1"));
            BLACK_HOLE_ADDRESSES.forEach(a -> resolve.add(BLACK_HOLE_HOST + "=" + a));
            SILENT_ADDRESSES.forEach(a -> resolve.add(SILENT_HOST + "=" + a));
            return Map.of("hook.signing.key-file", key.toString(), "hook.signing.chain-file", chain.toString(),
                    "hook.certificate-url", "https://" + CERT_HOST + "/platform/hooks/certificate/",
                    "hook.management.url", baseUrl(), "hook.management.internal-api-key", "mgmt-key",
                    "hook.delivery.resolve", String.join(",", resolve), "hook.delivery.trust-store",
                    receiverCa.toString());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void account(HttpExchange ex) throws IOException {
        String id = ex.getRequestURI().getPath().substring("/internal/v1/accounts/".length());
        boolean authorized = "Bearer mgmt-key".equals(ex.getRequestHeaders().getFirst("Authorization"));
        String traceparent = ex.getRequestHeaders().getFirst("traceparent");
        if (traceparent != null) {
            LOOKUP_TRACEPARENTS.put(id, traceparent);
        }
        lookupTimes(id).add(System.nanoTime());
        LOOKUPS.computeIfAbsent(id, k -> new java.util.concurrent.atomic.AtomicInteger()).incrementAndGet();
        java.util.concurrent.CountDownLatch hold = LOOKUP_HOLDS.get(id);
        try {
            if (hold != null && !hold.await(4, java.util.concurrent.TimeUnit.SECONDS)) {
                throw new IllegalStateException("a held account lookup was never released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        ConcurrentLinkedQueue<Answer> scripted = LOOKUP_SCRIPT.get(id);
        Answer a = scripted == null ? null : scripted.poll();
        if (a != null && a.delayMs() > 0) {
            try {
                Thread.sleep(a.delayMs()); // a slow management-service: the scripted answer comes this much later
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (a != null && a.status() != 200) {
            answer(ex, a.status(), "{\"error_code\":\"INTERNAL_ERROR\"}");
        } else if (!authorized) {
            answer(ex, 401, "{}");
        } else if (id.equals(UNKNOWN_ACCOUNT)) {
            answer(ex, 404, "{\"error_code\":\"ACCOUNT_NOT_FOUND\"}");
        } else if (id.equals(RECORDED_ACCOUNT)) {
            answer(ex, 200, Contracts.sample(Contracts.MANAGEMENT_ACCOUNT));
        } else if (WEBHOOKS.containsKey(id)) {
            answer(ex, 200, "{\"account_id\":\"" + id + "\",\"webhook_url\":\"" + WEBHOOKS.get(id) + "\"}");
        } else {
            String base = id.startsWith(TLS_ACCOUNT_PREFIX)
                    ? "https://" + TLS_HOST + ":" + tlsServer.port()
                    : baseUrl();
            answer(ex, 200, "{\"account_id\":\"" + id + "\",\"webhook_url\":\"" + base + "/hooks/" + id + "\"}");
        }
    }

    private static void hook(HttpExchange ex) throws IOException {
        String account = ex.getRequestURI().getPath().substring("/hooks/".length());
        byte[] body = ex.getRequestBody().readAllBytes();
        ConcurrentLinkedQueue<Answer> q = SCRIPT.get(account);
        Answer a = q == null ? null : q.poll();
        if (a == null) {
            a = new Answer(200, 0, null);
        }
        received(account).add(new Received(Map.copyOf(ex.getRequestHeaders()), body, System.nanoTime()));
        int now = IN_FLIGHT.computeIfAbsent(account, k -> new java.util.concurrent.atomic.AtomicInteger())
                .incrementAndGet();
        MOST_IN_FLIGHT.computeIfAbsent(account, k -> new java.util.concurrent.atomic.AtomicInteger())
                .accumulateAndGet(now, Math::max);
        InFlightGate gate = GATES.get(account);
        try {
            if (gate != null) {
                if (now >= gate.inFlight()) {
                    gate.open().countDown();
                }
                gate.open().await(30, java.util.concurrent.TimeUnit.SECONDS); // then answered: the test sees too few
            }
            if (a.delayMs() > 0) {
                Thread.sleep(a.delayMs()); // a slow receiver: the scripted answer comes this much later
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            IN_FLIGHT.get(account).decrementAndGet();
        }
        if (a.retryAfter() != null) {
            ex.getResponseHeaders().set("Retry-After", a.retryAfter());
        }
        answer(ex, a.status(), "{}");
    }

    @Override
    public void stop() {
        if (server != null) {
            server.close();
        }
        if (tlsServer != null) {
            tlsServer.close();
        }
    }

    /** A JSON answer; a client that already gave up (the time-out test) is not an error here. */
    private static void answer(HttpExchange ex, int status, String body) {
        try {
            JsonExchanges.respond(ex, status, body);
        } catch (IOException ignored) {
            // the client gave up
        }
    }

}
