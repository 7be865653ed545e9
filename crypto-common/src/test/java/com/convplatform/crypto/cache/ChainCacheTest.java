package com.convplatform.crypto.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.convplatform.crypto.FailureCode;
import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.chain.ValidatedChain;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.crypto.testing.Await;
import com.convplatform.crypto.testing.MutableClock;
import com.convplatform.crypto.testing.TestPki;

/** The cache behind both verifiers: single flight, LRU bound, maximum age, rate-limited refresh. */
class ChainCacheTest {
    static ValidatedChain chainA;
    static ValidatedChain chainB;

    final MutableClock clock = new MutableClock(Instant.parse("2026-11-22T10:00:00Z"));
    final Map<String, AtomicInteger> loads = new ConcurrentHashMap<>();

    @BeforeAll
    static void chains() {
        TestPki pki = TestPki.create();
        chainA = ValidatedChain.of(pki.leaf(KeyPairs.ecP256(), "a.example.com").chain());
        chainB = ValidatedChain.of(pki.leaf(KeyPairs.ecP256(), "b.example.com").chain());
    }

    ChainCache.Loader counting(ValidatedChain result) {
        return key -> {
            loads.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
            return result;
        };
    }

    int loads(String key) {
        AtomicInteger n = loads.get(key);
        return n == null ? 0 : n.get();
    }

    @Test
    void concurrentCallersShareOneDownload() throws Exception {
        ChainCache cache = new ChainCache(10, Duration.ofHours(1), Duration.ofSeconds(10), clock);
        AtomicInteger calls = new AtomicInteger();
        CountDownLatch inLoader = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ChainCache.Loader slow = key -> {
            calls.incrementAndGet();
            inLoader.countDown();
            try {
                release.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return chainA;
        };
        int threads = 16;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Thread> callers = new CopyOnWriteArrayList<>();
        try {
            CountDownLatch gate = new CountDownLatch(1);
            List<Future<ChainCache.Entry>> results = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                results.add(pool.submit(() -> {
                    callers.add(Thread.currentThread());
                    gate.await();
                    return cache.get("https://a.example.com/client.api/c.pem", slow);
                }));
            }
            gate.countDown();
            assertTrue(inLoader.await(5, TimeUnit.SECONDS));
            // every other caller has joined the download in flight before it completes
            Await.until(Duration.ofSeconds(5), () -> waitingForTheDownload(callers) == threads - 1,
                    (threads - 1) + " callers waiting for the download in flight");
            release.countDown();
            ChainCache.Entry first = results.get(0).get(5, TimeUnit.SECONDS);
            for (Future<ChainCache.Entry> f : results) {
                assertSame(first, f.get(5, TimeUnit.SECONDS));
            }
            assertEquals(1, calls.get());
            assertSame(chainA, first.chain());
        } finally {
            pool.shutdownNow();
        }
    }

    /** How many of {@code callers} are inside the cache, waiting for another caller's download. */
    static long waitingForTheDownload(List<Thread> callers) {
        return callers.stream().filter(t -> Arrays.stream(t.getStackTrace()).anyMatch(
                f -> f.getClassName().equals(ChainCache.class.getName()) && f.getMethodName().equals("await")))
                .count();
    }

    @Test
    void repeatedRacesStillDownloadOncePerUrl() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            for (int round = 0; round < 50; round++) {
                ChainCache cache = new ChainCache(10, Duration.ofHours(1), Duration.ofSeconds(10), clock);
                String key = "round-" + round;
                CountDownLatch gate = new CountDownLatch(1);
                List<Future<ChainCache.Entry>> results = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    results.add(pool.submit(() -> {
                        gate.await();
                        return cache.get(key, counting(chainA));
                    }));
                }
                gate.countDown();
                for (Future<ChainCache.Entry> f : results) {
                    f.get(5, TimeUnit.SECONDS);
                }
                assertEquals(1, loads(key), key);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theLeastRecentlyUsedUrlIsDroppedBeyondTheBound() throws Exception {
        ChainCache cache = new ChainCache(2, Duration.ofHours(1), Duration.ofSeconds(10), clock);
        cache.get("a", counting(chainA));
        cache.get("b", counting(chainB));
        cache.get("a", counting(chainA)); // a is now the most recently used
        cache.get("c", counting(chainA)); // drops b
        assertEquals(2, cache.size());
        cache.get("a", counting(chainA));
        assertEquals(1, loads("a"));
        cache.get("b", counting(chainB));
        assertEquals(2, loads("b"));
        assertEquals(2, cache.size());
    }

    @Test
    void anEntryIsReloadedAfterItsMaximumAge() throws Exception {
        ChainCache cache = new ChainCache(10, Duration.ofMinutes(60), Duration.ofSeconds(10), clock);
        ChainCache.Entry first = cache.get("a", counting(chainA));
        clock.advance(Duration.ofMinutes(60));
        assertSame(first, cache.get("a", counting(chainA)), "exactly the maximum age is still fresh");
        clock.advance(Duration.ofSeconds(1));
        ChainCache.Entry second = cache.get("a", counting(chainA));
        assertEquals(2, loads("a"));
        assertEquals(clock.instant(), second.loadedAt());
    }

    @Test
    void failuresAreNotCached() {
        ChainCache cache = new ChainCache(10, Duration.ofHours(1), Duration.ofSeconds(10), clock);
        AtomicInteger calls = new AtomicInteger();
        ChainCache.Loader failing = key -> {
            calls.incrementAndGet();
            throw new VerificationException(FailureCode.CERT_FETCH_FAILED, "down");
        };
        for (int i = 0; i < 3; i++) {
            assertEquals("down", assertThrows(VerificationException.class, () -> cache.get("a", failing))
                    .getMessage());
        }
        assertEquals(3, calls.get());
        assertEquals(0, cache.size());
    }

    @Test
    void refreshIsRateLimitedByTheEntrysAge() throws Exception {
        ChainCache cache = new ChainCache(10, Duration.ofHours(1), Duration.ofSeconds(10), clock);
        ChainCache.Entry first = cache.get("a", counting(chainA));
        clock.advance(Duration.ofSeconds(29));
        assertSame(first, cache.refresh("a", first, Duration.ofSeconds(30), counting(chainB)));
        assertEquals(1, loads("a"));
        clock.advance(Duration.ofSeconds(1));
        ChainCache.Entry second = cache.refresh("a", first, Duration.ofSeconds(30), counting(chainB));
        assertSame(chainB, second.chain());
        assertEquals(2, loads("a"));
        // a caller still holding the old entry gets the replacement without another download
        assertSame(second, cache.refresh("a", first, Duration.ofSeconds(30), counting(chainB)));
        assertSame(second, cache.refresh("a", second, Duration.ofSeconds(30), counting(chainB)));
        assertEquals(2, loads("a"));
        assertSame(second, cache.get("a", counting(chainA)));
    }

    @Test
    void aFailedRefreshKeepsTheEntryAndWaitsBeforeTrying() throws Exception {
        ChainCache cache = new ChainCache(10, Duration.ofHours(1), Duration.ofSeconds(10), clock);
        ChainCache.Entry first = cache.get("a", counting(chainA));
        clock.advance(Duration.ofMinutes(5));
        AtomicInteger attempts = new AtomicInteger();
        ChainCache.Loader failing = key -> {
            attempts.incrementAndGet();
            throw new VerificationException(FailureCode.CERT_FETCH_FAILED, "down");
        };
        assertThrows(VerificationException.class, () -> cache.refresh("a", first, Duration.ofSeconds(30), failing));
        ChainCache.Entry kept = cache.get("a", counting(chainB));
        assertSame(chainA, kept.chain());
        assertEquals(1, loads("a"));
        // the failed attempt counts: no new download until the interval has passed again
        assertSame(kept, cache.refresh("a", kept, Duration.ofSeconds(30), failing));
        assertEquals(1, attempts.get());
        clock.advance(Duration.ofSeconds(30));
        assertThrows(VerificationException.class, () -> cache.refresh("a", kept, Duration.ofSeconds(30), failing));
        assertEquals(2, attempts.get());
        // a failed refresh never makes the chain younger: at its maximum age (from its load) it is downloaded again,
        // and while its URL keeps failing (the chain taken off it) nothing is served from memory
        ChainCache.Entry keptAgain = cache.get("a", counting(chainB));
        assertEquals(first.loadedAt(), keptAgain.loadedAt());
        clock.advance(Duration.ofMinutes(55));
        assertThrows(VerificationException.class, () -> cache.get("a", failing));
        assertEquals(3, attempts.get());
        assertThrows(VerificationException.class, () -> cache.get("a", failing));
        assertEquals(4, attempts.get(), "nothing kept: each request asks the URL again");
    }

    @Test
    void invalidateDropsAnEntry() throws Exception {
        ChainCache cache = new ChainCache(10, Duration.ofHours(1), Duration.ofSeconds(10), clock);
        cache.get("a", counting(chainA));
        cache.invalidate("a");
        assertEquals(0, cache.size());
        cache.get("a", counting(chainA));
        assertEquals(2, loads("a"));
        assertThrows(IllegalArgumentException.class,
                () -> new ChainCache(0, Duration.ofHours(1), Duration.ofSeconds(1), clock));
    }

    /** A thread that must not block (a server's event loop) is stopped before it downloads or waits for a download. */
    @Test
    void beforeLoadStopsALoadAndAWaitButNotAHit() throws Exception {
        AtomicBoolean mayBlock = new AtomicBoolean(false);
        ChainCache cache = new ChainCache(10, Duration.ofHours(1), Duration.ofSeconds(10), clock, () -> {
            if (!mayBlock.get()) {
                throw new IllegalStateException("may not block here");
            }
        });
        assertThrows(IllegalStateException.class, () -> cache.get("a", counting(chainA)));
        assertEquals(0, loads("a"), "nothing downloaded");
        mayBlock.set(true);
        cache.get("a", counting(chainA));
        mayBlock.set(false);
        assertEquals(chainA, cache.get("a", counting(chainA)).chain(), "a cached chain is served");
        assertEquals(1, loads("a"));
        clock.advance(Duration.ofHours(2));
        assertThrows(IllegalStateException.class, () -> cache.get("a", counting(chainA)), "too old: a download");
        assertEquals(1, loads("a"));
    }
}
