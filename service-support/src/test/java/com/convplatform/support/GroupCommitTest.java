package com.convplatform.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.junit.jupiter.api.Test;

class GroupCommitTest {

    /** A batch function whose first call waits until released, so that items submitted meanwhile queue up. */
    static final class FirstBatchHeld<T, R> implements Function<List<T>, List<R>> {
        final List<List<T>> calls = Collections.synchronizedList(new ArrayList<>());
        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final Function<List<T>, List<R>> write;

        FirstBatchHeld(Function<List<T>, List<R>> write) {
            this.write = write;
        }

        @Override
        public List<R> apply(List<T> items) {
            calls.add(items);
            if (calls.size() == 1) {
                started.countDown();
                try {
                    assertTrue(release.await(5, TimeUnit.SECONDS));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
            return write.apply(items);
        }

        List<Integer> sizes() {
            return calls.stream().map(List::size).toList();
        }
    }

    /**
     * Submits the first item, and once its batch is being written the others (which queue up behind it), then lets
     * the first batch end. Returns each caller's outcome, in order.
     */
    static <T, R> List<Future<R>> submitBehindFirst(GroupCommit<T, R> commit, FirstBatchHeld<T, R> batch,
            List<T> items, ExecutorService callers) throws InterruptedException {
        List<Future<R>> out = new ArrayList<>();
        out.add(callers.submit(() -> commit.submit(items.get(0))));
        assertTrue(batch.started.await(5, TimeUnit.SECONDS));
        for (T item : items.subList(1, items.size())) {
            out.add(callers.submit(() -> commit.submit(item)));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (commit.queued() < items.size() - 1 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(items.size() - 1, commit.queued(), "items queued behind the first batch");
        batch.release.countDown();
        return out;
    }

    static List<Integer> upTo(int n) {
        List<Integer> items = new ArrayList<>();
        for (int i = 0; i <= n; i++) {
            items.add(i);
        }
        return items;
    }

    @Test
    void itemsQueuedWhileABatchIsWrittenShareTheNextBatchAndEachGetsItsOwnResult() throws Exception {
        FirstBatchHeld<Integer, String> batch = new FirstBatchHeld<>(
                items -> items.stream().map(i -> "r" + i).toList());
        ExecutorService callers = Executors.newFixedThreadPool(11);
        try (GroupCommit<Integer, String> commit = new GroupCommit<>("test-writer", 64, batch)) {
            List<Future<String>> results = submitBehindFirst(commit, batch, upTo(10), callers);
            for (int i = 0; i < results.size(); i++) {
                assertEquals("r" + i, results.get(i).get(5, TimeUnit.SECONDS));
            }
        } finally {
            callers.shutdownNow();
        }
        assertEquals(List.of(1, 10), batch.sizes(), "the ten items that queued up went in one batch");
    }

    @Test
    void aFailedBatchIsWrittenItemByItemSoOnlyTheBadItemFails() throws Exception {
        FirstBatchHeld<Integer, Integer> batch = new FirstBatchHeld<>(items -> {
            if (items.contains(13)) {
                throw new IllegalArgumentException("13 is refused");
            }
            return items.stream().map(i -> i * 2).toList();
        });
        ExecutorService callers = Executors.newFixedThreadPool(4);
        try (GroupCommit<Integer, Integer> commit = new GroupCommit<>("test-writer", 64, batch)) {
            List<Future<Integer>> results = submitBehindFirst(commit, batch, List.of(1, 12, 13, 14), callers);
            assertEquals(2, results.get(0).get(5, TimeUnit.SECONDS));
            assertEquals(24, results.get(1).get(5, TimeUnit.SECONDS));
            Exception e = assertThrows(Exception.class, () -> results.get(2).get(5, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof IllegalArgumentException, "its own exception: " + e.getCause());
            assertEquals("13 is refused", e.getCause().getMessage());
            assertEquals(28, results.get(3).get(5, TimeUnit.SECONDS));
        } finally {
            callers.shutdownNow();
        }
        assertEquals(List.of(1, 3, 1, 1, 1), batch.sizes(), "the three queued items as one batch, then each alone");
    }

    @Test
    void aBatchIsNeverLargerThanTheLimit() throws Exception {
        FirstBatchHeld<Integer, Integer> batch = new FirstBatchHeld<>(items -> items);
        ExecutorService callers = Executors.newFixedThreadPool(10);
        try (GroupCommit<Integer, Integer> commit = new GroupCommit<>("test-writer", 4, batch)) {
            for (Future<Integer> f : submitBehindFirst(commit, batch, upTo(9), callers)) {
                f.get(5, TimeUnit.SECONDS);
            }
        } finally {
            callers.shutdownNow();
        }
        assertEquals(List.of(1, 4, 4, 1), batch.sizes());
    }

    @Test
    void writesWithoutResultsAreBatchedTheSameWay() throws Exception {
        List<List<Integer>> written = Collections.synchronizedList(new ArrayList<>());
        FirstBatchHeld<Integer, Void> batch = new FirstBatchHeld<>(items -> {
            written.add(items);
            return Collections.nCopies(items.size(), null);
        });
        ExecutorService callers = Executors.newFixedThreadPool(4);
        try (GroupCommit<Integer, Void> commit = GroupCommit.ofWrites("test-writer", 8, batch::apply)) {
            for (Future<Void> f : submitBehindFirst(commit, batch, upTo(3), callers)) {
                assertEquals(null, f.get(5, TimeUnit.SECONDS));
            }
        } finally {
            callers.shutdownNow();
        }
        assertEquals(List.of(1, 3), written.stream().map(List::size).toList());
        assertEquals(List.of(1, 2, 3), written.get(1).stream().sorted().toList(), "the three callers' items");
    }

    @Test
    void itemsSubmittedTogetherShareBatchesInOrderAndABadOneFailsAlone() throws Exception {
        FirstBatchHeld<Integer, Integer> batch = new FirstBatchHeld<>(items -> {
            if (items.contains(13)) {
                throw new IllegalArgumentException("13 is refused");
            }
            return items.stream().map(i -> i * 10).toList();
        });
        ExecutorService callers = Executors.newFixedThreadPool(1);
        try (GroupCommit<Integer, Integer> commit = new GroupCommit<>("test-writer", 4, batch)) {
            Future<Integer> first = callers.submit(() -> commit.submit(0));
            assertTrue(batch.started.await(5, TimeUnit.SECONDS));
            List<java.util.concurrent.CompletableFuture<Integer>> all = commit.submitAll(List.of(1, 2, 13, 4, 5, 6));
            assertEquals(6, commit.queued());
            batch.release.countDown();
            assertEquals(0, first.get(5, TimeUnit.SECONDS));
            assertEquals(10, GroupCommit.await(all.get(0)));
            assertEquals(20, GroupCommit.await(all.get(1)));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> GroupCommit.await(all.get(2)));
            assertEquals("13 is refused", e.getMessage());
            assertEquals(40, GroupCommit.await(all.get(3)));
            assertEquals(List.of(50, 60), List.of(GroupCommit.await(all.get(4)), GroupCommit.await(all.get(5))));
        } finally {
            callers.shutdownNow();
        }
        // [0]; [1, 2, 13, 4] fails, so each alone; then [5, 6]
        assertEquals(List.of(List.of(0), List.of(1, 2, 13, 4), List.of(1), List.of(2), List.of(13), List.of(4),
                List.of(5, 6)), batch.calls);
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
        GroupCommit.Closed refused = assertThrows(GroupCommit.Closed.class, () -> commit.submit(8));
        assertEquals("test-writer has stopped (the service is stopping); not written", refused.getMessage());
        // a caller that does not wait gets the refusal as its result's failure, never thrown at it
        CompletableFuture<Integer> queued = commit.queue(9);
        assertTrue(queued.isCompletedExceptionally());
        assertInstanceOf(GroupCommit.Closed.class, assertThrows(ExecutionException.class, queued::get).getCause());
        assertEquals(List.of(7), written);
    }

    @Test
    void pastTheDeadlineTheBatchBeingWrittenMayHaveHappenedAndTheItemsQueuedBehindItAreWithdrawn() throws Exception {
        FirstBatchHeld<Integer, Integer> batch = new FirstBatchHeld<>(items -> items);
        try (GroupCommit<Integer, Integer> commit = new GroupCommit<>("test-writer", 8, Duration.ofMillis(300),
                batch)) {
            CompletableFuture<Integer> held = commit.queue(0);
            assertTrue(batch.started.await(5, TimeUnit.SECONDS));
            CompletableFuture<Integer> behind = commit.queue(1);
            CompletableFuture<Integer> alsoBehind = commit.queue(2);

            ExecutionException unknown = assertThrows(ExecutionException.class, () -> held.get(5, TimeUnit.SECONDS));
            assertInstanceOf(LocalTransaction.OutcomeUnknown.class, unknown.getCause());
            assertTrue(unknown.getCause().getMessage().contains("may have been committed"), unknown.getMessage());
            for (CompletableFuture<Integer> f : List.of(behind, alsoBehind)) {
                ExecutionException withdrawn = assertThrows(ExecutionException.class, () -> f.get(5, TimeUnit.SECONDS));
                assertInstanceOf(GroupCommit.NotWritten.class, withdrawn.getCause());
                assertTrue(ErrorMappers.databaseUnavailable(withdrawn.getCause()), "answered as an outage");
            }
            assertEquals(0, commit.queued(), "the withdrawn items left the queue");

            batch.release.countDown();
            assertEquals(3, commit.submit(3), "once the database answers, writes go on");
        }
        assertEquals(List.of(List.of(0), List.of(3)), batch.calls, "the withdrawn items were never written");
    }

    @Test
    void aDeadlineOfZeroIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new GroupCommit<Integer, Integer>("test-writer", 8, Duration.ZERO, items -> items));
        assertEquals("the deadline must be longer than zero", e.getMessage());
    }
}
