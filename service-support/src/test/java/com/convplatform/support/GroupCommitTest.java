package com.convplatform.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

class GroupCommitTest {

    @Test
    void itemsQueuedWhileABatchIsWrittenShareTheNextBatchAndEachGetsItsOwnResult() throws Exception {
        List<Integer> batchSizes = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch firstBatchStarted = new CountDownLatch(1);
        CountDownLatch releaseFirstBatch = new CountDownLatch(1);
        try (GroupCommit<Integer, String> commit = new GroupCommit<>("test-writer", 64, items -> {
            batchSizes.add(items.size());
            if (batchSizes.size() == 1) {
                firstBatchStarted.countDown();
                await(releaseFirstBatch);
            }
            return items.stream().map(i -> "r" + i).toList();
        })) {
            ExecutorService callers = Executors.newFixedThreadPool(11);
            try {
                Future<String> first = callers.submit(() -> commit.submit(0));
                assertTrue(firstBatchStarted.await(5, TimeUnit.SECONDS));
                List<Future<String>> rest = new ArrayList<>();
                for (int i = 1; i <= 10; i++) {
                    int item = i;
                    rest.add(callers.submit(() -> commit.submit(item)));
                }
                waitUntilQueued(commit, rest);
                releaseFirstBatch.countDown();
                assertEquals("r0", first.get(5, TimeUnit.SECONDS));
                for (int i = 0; i < rest.size(); i++) {
                    assertEquals("r" + (i + 1), rest.get(i).get(5, TimeUnit.SECONDS));
                }
            } finally {
                callers.shutdownNow();
            }
        }
        assertEquals(List.of(1, 10), batchSizes, "the ten items that queued up went in one batch");
    }

    @Test
    void aFailedBatchIsWrittenItemByItemSoOnlyTheBadItemFails() throws Exception {
        List<List<Integer>> calls = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch firstBatchStarted = new CountDownLatch(1);
        CountDownLatch releaseFirstBatch = new CountDownLatch(1);
        try (GroupCommit<Integer, Integer> commit = new GroupCommit<>("test-writer", 64, items -> {
            calls.add(items);
            if (calls.size() == 1) {
                firstBatchStarted.countDown();
                await(releaseFirstBatch);
            }
            if (items.contains(13)) {
                throw new IllegalArgumentException("13 is refused");
            }
            return items.stream().map(i -> i * 2).toList();
        })) {
            ExecutorService callers = Executors.newFixedThreadPool(4);
            try {
                Future<Integer> first = callers.submit(() -> commit.submit(1));
                assertTrue(firstBatchStarted.await(5, TimeUnit.SECONDS));
                List<Future<Integer>> rest = List.of(callers.submit(() -> commit.submit(12)),
                        callers.submit(() -> commit.submit(13)), callers.submit(() -> commit.submit(14)));
                waitUntilQueued(commit, rest);
                releaseFirstBatch.countDown();
                assertEquals(2, first.get(5, TimeUnit.SECONDS));
                assertEquals(24, rest.get(0).get(5, TimeUnit.SECONDS));
                Exception e = assertThrows(Exception.class, () -> rest.get(1).get(5, TimeUnit.SECONDS));
                assertTrue(e.getCause() instanceof IllegalArgumentException, "its own exception: " + e.getCause());
                assertEquals("13 is refused", e.getCause().getMessage());
                assertEquals(28, rest.get(2).get(5, TimeUnit.SECONDS));
            } finally {
                callers.shutdownNow();
            }
        }
        assertEquals(3, calls.get(1).size(), "the three queued items were tried as one batch first: " + calls);
        assertEquals(5, calls.size(), "then each alone: " + calls);
    }

    @Test
    void closeWritesWhatIsQueuedAndRefusesLaterItems() {
        List<Integer> written = Collections.synchronizedList(new ArrayList<>());
        GroupCommit<Integer, Integer> commit = new GroupCommit<>("test-writer", 8, items -> {
            written.addAll(items);
            return items;
        });
        assertEquals(7, commit.submit(7));
        commit.close();
        assertEquals(List.of(7), written);
        assertThrows(IllegalStateException.class, () -> commit.submit(8));
    }

    @Test
    void aBatchIsNeverLargerThanTheLimit() throws Exception {
        List<Integer> batchSizes = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch firstBatchStarted = new CountDownLatch(1);
        CountDownLatch releaseFirstBatch = new CountDownLatch(1);
        try (GroupCommit<Integer, Integer> commit = new GroupCommit<>("test-writer", 4, items -> {
            batchSizes.add(items.size());
            if (batchSizes.size() == 1) {
                firstBatchStarted.countDown();
                await(releaseFirstBatch);
            }
            return items;
        })) {
            ExecutorService callers = Executors.newFixedThreadPool(10);
            try {
                Future<Integer> first = callers.submit(() -> commit.submit(0));
                assertTrue(firstBatchStarted.await(5, TimeUnit.SECONDS));
                List<Future<Integer>> rest = new ArrayList<>();
                for (int i = 1; i <= 9; i++) {
                    int item = i;
                    rest.add(callers.submit(() -> commit.submit(item)));
                }
                waitUntilQueued(commit, rest);
                releaseFirstBatch.countDown();
                first.get(5, TimeUnit.SECONDS);
                for (Future<Integer> f : rest) {
                    f.get(5, TimeUnit.SECONDS);
                }
            } finally {
                callers.shutdownNow();
            }
        }
        assertEquals(List.of(1, 4, 4, 1), batchSizes);
    }

    /** The callers have handed in their items (they block in submit until the first batch is released). */
    private static void waitUntilQueued(GroupCommit<?, ?> commit, List<? extends Future<?>> callers)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (commit.queued() < callers.size() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(callers.size(), commit.queued());
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(5, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
