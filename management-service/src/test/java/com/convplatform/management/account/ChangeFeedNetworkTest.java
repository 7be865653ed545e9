package com.convplatform.management.account;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.convplatform.testsupport.PostgresTestResource;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * The change feed finds a connection that stops answering without a word from the network (a host gone, a partition):
 * its probe waits at most {@link ChangeFeed#NETWORK_SECONDS} for an answer, the feed stops listening (so every request
 * reads the database again) and comes back once the network does. The feed talks to PostgreSQL through a relay that
 * the test freezes: it keeps both sockets open and passes nothing on, as a vanished host does.
 */
class ChangeFeedNetworkTest {
    private static final long BOUND_MILLIS = 60_000;
    private static PostgresTestResource.Database db;

    @BeforeAll
    static void database() {
        db = PostgresTestResource.create("change_feed_network");
    }

    @AfterAll
    static void drop() {
        PostgresTestResource.drop(db);
    }

    @Test
    void aConnectionThatStopsAnsweringIsFoundAndTheFeedComesBack() throws Exception {
        URI database = URI.create(db.url().substring("jdbc:".length()));
        SimpleMeterRegistry metrics = new SimpleMeterRegistry();
        DisabledSet noBlocks = new DisabledSet(null) {
            @Override
            void refresh() { // the blocks are another test's; this one watches the feed's own connection
            }
        };
        try (FrozenRelay relay = new FrozenRelay(database.getHost(), database.getPort())) {
            String url = "jdbc:postgresql://127.0.0.1:" + relay.port() + database.getPath();
            ChangeFeed feed = new ChangeFeed(url, Optional.of(db.user()), Optional.ofNullable(db.password()), noBlocks,
                    metrics);
            feed.atStart(null);
            try {
                await(feed::listening, "the feed to listen");
                assertEquals(1.0, metrics.get("management.change.feed.listening").gauge().value());
                long generation = feed.generation();

                relay.freeze();
                await(() -> !feed.listening(), "the feed to find its connection silent");
                assertEquals(0.0, metrics.get("management.change.feed.listening").gauge().value());
                assertTrue(feed.generation() > generation, "what was read while it listened is dropped");

                relay.thaw();
                await(feed::listening, "the feed to listen again");
            } finally {
                feed.stop();
            }
        }
    }

    private static void await(BooleanSupplier state, String what) throws InterruptedException {
        long end = System.nanoTime() + BOUND_MILLIS * 1_000_000;
        while (!state.getAsBoolean()) {
            assertTrue(System.nanoTime() < end, "waited " + BOUND_MILLIS + " ms for " + what);
            Thread.sleep(50);
        }
    }

    /** Relays TCP to PostgreSQL; frozen, it holds every byte (and every new connection) and closes nothing. */
    private static final class FrozenRelay implements AutoCloseable {
        private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        private final List<Socket> sockets = new CopyOnWriteArrayList<>();
        private final Object gate = new Object();
        private boolean frozen;

        FrozenRelay(String host, int port) throws IOException {
            Thread accepter = new Thread(() -> {
                try {
                    while (true) {
                        Socket client = server.accept();
                        sockets.add(client);
                        Thread opener = new Thread(() -> open(client, host, port), "relay-open");
                        opener.setDaemon(true);
                        opener.start();
                    }
                } catch (IOException closed) {
                    // the relay is closed
                }
            }, "relay-accept");
            accepter.setDaemon(true);
            accepter.start();
        }

        int port() {
            return server.getLocalPort();
        }

        void freeze() {
            synchronized (gate) {
                frozen = true;
            }
        }

        void thaw() {
            synchronized (gate) {
                frozen = false;
                gate.notifyAll();
            }
        }

        private void passWhenThawed() throws InterruptedException {
            synchronized (gate) {
                while (frozen) {
                    gate.wait();
                }
            }
        }

        private void open(Socket client, String host, int port) {
            try {
                passWhenThawed();
                Socket upstream = new Socket(host, port);
                sockets.add(upstream);
                pump(client, upstream);
                pump(upstream, client);
            } catch (IOException | InterruptedException e) {
                closeQuietly(client);
            }
        }

        private void pump(Socket from, Socket to) {
            Thread t = new Thread(() -> {
                byte[] buffer = new byte[8192];
                try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                    int n;
                    while ((n = in.read(buffer)) >= 0) {
                        passWhenThawed();
                        out.write(buffer, 0, n);
                        out.flush();
                    }
                } catch (IOException | InterruptedException e) {
                    // one side closed
                } finally {
                    closeQuietly(from);
                    closeQuietly(to);
                }
            }, "relay-pump");
            t.setDaemon(true);
            t.start();
        }

        private static void closeQuietly(Socket s) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing
            }
        }

        @Override
        public void close() throws IOException {
            thaw();
            server.close();
            sockets.forEach(FrozenRelay::closeQuietly);
        }
    }
}
