package com.convplatform.hook.delivery;

import static com.convplatform.hook.HookPlatformResource.received;
import static com.convplatform.hook.delivery.HookDeliveryTest.BACKGROUND;
import static com.convplatform.hook.delivery.HookDeliveryTest.OPERATOR;
import static com.convplatform.hook.delivery.HookDeliveryTest.account;
import static com.convplatform.hook.delivery.HookDeliveryTest.delivery;
import static com.convplatform.hook.delivery.HookDeliveryTest.event;
import static com.convplatform.hook.delivery.HookDeliveryTest.intake;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.convplatform.hook.HookPlatformResource;
import com.convplatform.hook.config.HookConfig;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Issue 22, item 5, black box: a webhook whose name resolves to many addresses that never answer. Each attempt ends
 * within one deadline (connect-timeout + read-timeout, over all the addresses), well inside the lease, is recorded as
 * a failed attempt with a plain error, and the delivery is retried later, attempt after attempt, never two at once.
 * Before that deadline, every address had a connect time-out of its own: eight black holes held one attempt for 8 x 3
 * s, and with a few more the attempt outlived its lease and another claim sent the hook again.
 * <p>
 * The names resolve through the seam {@code hook.delivery.resolve} (HookPlatformResource: eight loopback addresses
 * each) and the tests' private-network seam ({@code hook.delivery.allow-private-networks}, on in the test profile)
 * lets loopback through the SSRF guard. The test settings: connect-timeout 3 s (the default), read-timeout 1 s.
 */
@QuarkusTest
@QuarkusTestResource(HookPlatformResource.class)
class BlackHoleWebhookTest {
    /** What the service may add to its deadline: the account lookup, the name's lookup, signing, recording. */
    static final Duration MARGIN = Duration.ofSeconds(2);
    static final Pattern ATTEMPT = Pattern.compile("(?im)^X-Hook-Attempt:\\s*(\\d+)\\s*$");

    @Inject
    HookConfig config;

    final List<String> accounts = new ArrayList<>();
    static boolean warm;

    /**
     * The first delivery of a fresh application loads the account lookup's client, the signer and the HTTP client (on
     * a loaded machine, seconds): one ordinary delivery first, so the attempts measured below take their own time.
     */
    @BeforeEach
    void warmUp() {
        if (!warm) {
            String account = account();
            intake(event(account, 1), 202);
            HookDeliveryTest.awaitHooks(account, 1);
            warm = true;
        }
    }

    @AfterEach
    void forget() {
        accounts.forEach(HookPlatformResource.WEBHOOKS::remove);
    }

    /**
     * Listeners on one port of several loopback addresses that never answer, in one of two ways: the connection never
     * opens (the listener's backlog is full and it never accepts, so the kernel drops every new SYN: what a firewall
     * that drops packets looks like), or it opens and the request is read but never answered.
     */
    static final class Holes implements AutoCloseable {
        final List<ServerSocket> listeners = new ArrayList<>();
        final List<Socket> sockets = new CopyOnWriteArrayList<>();
        /** Per accepted connection: the address it reached and the X-Hook-Attempt of the request it carried. */
        final List<String> accepted = new CopyOnWriteArrayList<>();
        final int port;

        private Holes(List<String> addresses, boolean accept) throws IOException {
            int chosen = 0;
            for (int tries = 0; chosen == 0; tries++) {
                try {
                    for (String a : addresses) {
                        ServerSocket s = new ServerSocket();
                        listeners.add(s);
                        s.bind(new InetSocketAddress(InetAddress.getByName(a), listeners.size() == 1 ? 0 : chosen), 1);
                        chosen = listeners.get(0).getLocalPort();
                    }
                } catch (IOException taken) { // the first address's free port is taken on another one: again
                    close();
                    listeners.clear();
                    chosen = 0;
                    if (tries == 5) {
                        throw taken;
                    }
                }
            }
            this.port = chosen;
            for (ServerSocket s : listeners) {
                if (accept) {
                    Thread t = new Thread(() -> acceptAndHold(s), "silent-receiver");
                    t.setDaemon(true);
                    t.start();
                } else {
                    fill(s);
                }
            }
        }

        static Holes connectNeverOpens(List<String> addresses) throws IOException {
            return new Holes(addresses, false);
        }

        static Holes acceptAndNeverAnswer(List<String> addresses) throws IOException {
            return new Holes(addresses, true);
        }

        /** Fills the backlog with connections nobody accepts, until one more cannot open: the next SYN is dropped. */
        private void fill(ServerSocket s) throws IOException {
            for (int i = 0; i < 16; i++) {
                Socket c = new Socket();
                try {
                    c.connect(s.getLocalSocketAddress(), 300);
                    sockets.add(c);
                } catch (SocketTimeoutException full) {
                    c.close();
                    return;
                }
            }
            throw new IllegalStateException("the backlog of " + s + " did not fill: connections to it would open");
        }

        private void acceptAndHold(ServerSocket s) {
            try {
                while (true) {
                    Socket c = s.accept();
                    sockets.add(c); // held open, never answered
                    String head = head(c.getInputStream());
                    Matcher m = ATTEMPT.matcher(head);
                    accepted.add(c.getLocalAddress().getHostAddress() + " attempt " + (m.find() ? m.group(1) : "?"));
                }
            } catch (IOException closed) {
                // the test is over
            }
        }

        private static String head(InputStream in) throws IOException {
            StringBuilder b = new StringBuilder();
            int c;
            while (b.indexOf("\r\n\r\n") < 0 && (c = in.read()) != -1) {
                b.append((char) c);
            }
            return b.toString();
        }

        @Override
        public void close() {
            for (AutoCloseable c : List.copyOf(listeners)) {
                try {
                    c.close();
                } catch (Exception ignored) {
                    // closing
                }
            }
            for (Socket c : sockets) {
                try {
                    c.close();
                } catch (IOException ignored) {
                    // closing
                }
            }
        }
    }

    static List<Map<String, Object>> attempts(String account) {
        return given().header("Authorization", OPERATOR)
                .get("/admin/v1/deliveries/" + delivery(account).get("delivery_id") + "/attempts").then()
                .statusCode(200).extract().path("$");
    }

    String webhook(String account, String host, int port) {
        accounts.add(account);
        String url = "http://" + host + ":" + port + "/hooks/" + account;
        HookPlatformResource.WEBHOOKS.put(account, url);
        return url;
    }

    /** The deadline of one attempt, over all of a name's addresses. */
    Duration deadline() {
        return config.delivery().connectTimeout().plus(config.delivery().readTimeout());
    }

    /** The error every attempt below is recorded with: plain words, no exception's text. */
    String timedOut() {
        return "timed out: no answer within the read time-out (" + config.delivery().readTimeout().toMillis()
                + " ms) or the attempt's deadline (" + deadline().toMillis() + " ms over every address)";
    }

    /**
     * The first two attempts, after checking what both tests expect of every one: each failed with the plain time-out
     * error, took at most the deadline and its margin, and began after the one before it had ended (a second claim of
     * a delivery still in flight would begin before: the hook sent twice).
     */
    List<Map<String, Object>> twoFailedAttemptsWithinTheDeadline(String account) {
        await().atMost(Duration.ofSeconds(30)).until(() -> attempts(account).size() >= 2);
        List<Map<String, Object>> attempts = attempts(account);
        System.out.println("BlackHoleWebhookTest " + account + ": " + attempts);
        long bound = deadline().plus(MARGIN).toMillis();
        Instant previousEnd = Instant.MIN;
        for (int i = 0; i < 2; i++) {
            Map<String, Object> a = attempts.get(i);
            assertEquals(i + 1, a.get("attempt"), attempts.toString());
            assertNull(a.get("status_code"), attempts.toString());
            assertEquals(timedOut(), a.get("error"), attempts.toString());
            long latency = ((Number) a.get("latency_ms")).longValue();
            assertTrue(latency <= bound, "attempt " + (i + 1) + " took " + latency + " ms; its deadline is "
                    + deadline().toMillis() + " ms (+ " + MARGIN.toMillis() + " ms margin): " + attempts);
            Instant started = Instant.parse((String) a.get("started_at"));
            assertFalse(started.isBefore(previousEnd), "attempt " + (i + 1) + " began before the one before it had"
                    + " ended: " + attempts);
            previousEnd = started.plusMillis(latency);
        }
        // what the lease must outlast is longer still, and the start-up check holds the lease to it
        assertTrue(bound < DeliveryAttempt.longestAttempt(config.delivery().connectTimeout(),
                config.delivery().readTimeout()).toMillis());
        assertTrue(config.delivery().lease().toMillis() > bound);
        assertTrue(received(account).isEmpty(), "nothing answered, so nothing was delivered");
        assertTrue(!"DELIVERED".equals(delivery(account).get("status")), delivery(account).toString());
        return attempts;
    }

    @Test
    void eightAddressesThatNeverOpenAConnectionHoldAnAttemptForOneDeadlineAndItIsRetried() throws Exception {
        String account = account();
        try (Holes holes = Holes.connectNeverOpens(HookPlatformResource.BLACK_HOLE_ADDRESSES)) {
            webhook(account, HookPlatformResource.BLACK_HOLE_HOST, holes.port);
            intake(event(account, 1), 202);
            List<Map<String, Object>> attempts = twoFailedAttemptsWithinTheDeadline(account);
            for (Map<String, Object> a : attempts.subList(0, 2)) {
                // the holes did hold it, at least one whole connect time-out (with a time-out of its own for each
                // address, as before the deadline, 8 of them held it 24 s)
                assertTrue(((Number) a.get("latency_ms")).longValue() >= config.delivery().connectTimeout().toMillis()
                        - 100, "an attempt ended before one connect time-out, so the black holes did not hold it: "
                                + attempts);
            }
        }
    }

    @Test
    void eightAddressesThatAcceptAndNeverAnswerGetEachAttemptOnceAtTheFirstAddress() throws Exception {
        String account = account();
        try (Holes holes = Holes.acceptAndNeverAnswer(HookPlatformResource.SILENT_ADDRESSES)) {
            webhook(account, HookPlatformResource.SILENT_HOST, holes.port);
            intake(event(account, 1), 202);
            twoFailedAttemptsWithinTheDeadline(account);
            // Once a connection opened the hook was sent on it: no other address may be tried for that attempt (the
            // receiver behind it would get the same hook twice). Each attempt came once, to the first address.
            String first = HookPlatformResource.SILENT_ADDRESSES.get(0);
            await().atMost(BACKGROUND).until(() -> holes.accepted.size() >= 2);
            List<String> seen = List.copyOf(holes.accepted);
            assertEquals(List.of(first + " attempt 1", first + " attempt 2"), seen.subList(0, 2), seen.toString());
            for (int i = 2; i < seen.size(); i++) {
                assertEquals(first + " attempt " + (i + 1), seen.get(i), seen.toString());
            }
        }
    }
}
