package com.convplatform.management.account;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.Optional;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.convplatform.testsupport.PostgresTestResource;
import com.convplatform.testsupport.TcpRelay;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * The change feed finds a connection that stops answering without a word from the network (a host gone, a partition):
 * its probe waits at most {@link ChangeFeed#NETWORK_SECONDS} for an answer, the feed stops listening (so every request
 * reads the database again) and comes back once the network does. The feed talks to PostgreSQL through a relay that
 * the test freezes (test-support's TcpRelay): it keeps both sockets open and passes nothing on, as a vanished host does.
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
        try (TcpRelay relay = new TcpRelay(database.getHost(), database.getPort())) {
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

                relay.open();
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
}
