package com.convplatform.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

import org.jboss.logging.Logger;

/**
 * Group commit: callers hand in items and wait; one thread writes whatever has queued up meanwhile (at most
 * {@code maxBatch}) in one call of the batch function, one transaction, so under load many requests share a commit. A
 * caller's answer still follows its commit. When a batch fails, each of its items is written again alone, so one bad
 * item (or a conflict with another replica) fails only its own caller, with its own exception; but not when the
 * batch's commit may have happened ({@link LocalTransaction.OutcomeUnknown}): every item then fails with that, since
 * writing them again could write them twice.
 * <p>
 * With a deadline, no caller waits longer than it: a database that stops answering (a network partition holds a
 * statement until the kernel gives up on the connection, which can take hours) would otherwise hold every caller, and
 * every request behind it, unanswered. Items of the batch that is being written fail with {@link
 * LocalTransaction.OutcomeUnknown} (the batch may still commit once the database answers); items still queued behind
 * it are withdrawn and fail with {@link NotWritten} (they are never written). A watch thread checks every tenth of the
 * deadline (at most every second) and warns at most every 10 s.
 */
public final class GroupCommit<T, R> implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(GroupCommit.class);

    private record Pending<T, R>(T item, CompletableFuture<R> result, long queuedAt) {
    }

    /** The writer has stopped (the service is stopping): the item was refused, never written. */
    public static final class Closed extends IllegalStateException {
        Closed(String name) {
            super(name + " has stopped (the service is stopping); not written");
        }
    }

    /** The item was withdrawn unwritten: it waited past the deadline behind a batch the database did not answer. */
    public static final class NotWritten extends IllegalStateException {
        NotWritten(String message) {
            super(message);
        }
    }

    private final LinkedBlockingQueue<Pending<T, R>> queue = new LinkedBlockingQueue<>();
    private final Function<List<T>, List<R>> batch;
    private final int maxBatch;
    private final Thread writer;
    private final String name;
    private final Duration deadline;
    private final WarningPace pace = new WarningPace(Duration.ofSeconds(10));
    /** The batch being written and since when (nanoTime), published as one; null between batches. */
    private record Writing<T, R>(List<Pending<T, R>> items, long since) {
    }

    private volatile Writing<T, R> writing;
    private volatile boolean open = true;

    /** {@code batch} writes the items in one transaction and returns one result per item, in order. No deadline. */
    public GroupCommit(String name, int maxBatch, Function<List<T>, List<R>> batch) {
        this(name, maxBatch, null, batch);
    }

    /** As above; no caller waits longer than {@code deadline} (null: no deadline). */
    public GroupCommit(String name, int maxBatch, Duration deadline, Function<List<T>, List<R>> batch) {
        if (maxBatch < 1) {
            throw new IllegalArgumentException("maxBatch must be at least 1");
        }
        if (deadline != null && (deadline.isNegative() || deadline.isZero())) {
            throw new IllegalArgumentException("the deadline must be longer than zero");
        }
        this.batch = batch;
        this.maxBatch = maxBatch;
        this.name = name;
        this.deadline = deadline;
        this.writer = new Thread(this::run, name);
        writer.setDaemon(true);
        writer.start();
        if (deadline != null) {
            Thread watch = new Thread(this::watch, name + "-deadline");
            watch.setDaemon(true);
            watch.start();
        }
    }

    /** A group commit of writes that have no result of their own ({@link #submit} returns null). */
    public static <T> GroupCommit<T, Void> ofWrites(String name, int maxBatch, Consumer<List<T>> write) {
        return new GroupCommit<>(name, maxBatch, items -> {
            write.accept(items);
            return Collections.nCopies(items.size(), null);
        });
    }

    /** Writes the item in the next batch; its result, or its own failure unchanged. */
    public R submit(T item) {
        return await(queue(item));
    }

    /**
     * Queues the item without waiting; its result completes once its batch has returned. Once closed, it fails at once
     * ({@link Closed}), so that a caller that does not wait needs no path of its own for a writer that stopped.
     */
    public CompletableFuture<R> queue(T item) {
        try {
            return submitAll(List.of(item)).get(0);
        } catch (IllegalStateException closed) {
            return CompletableFuture.failedFuture(closed);
        }
    }

    /** Queues the items together, in order; each one's result completes once its batch has returned. */
    public List<CompletableFuture<R>> submitAll(List<T> items) {
        if (!open) {
            throw new Closed(name);
        }
        List<CompletableFuture<R>> out = new ArrayList<>(items.size());
        List<Pending<T, R>> pending = new ArrayList<>(items.size());
        long now = System.nanoTime();
        for (T item : items) {
            CompletableFuture<R> f = new CompletableFuture<>();
            out.add(f);
            pending.add(new Pending<>(item, f, now));
        }
        queue.addAll(pending);
        if (!open) {
            // closed after the check above: the writer may have gone; write them here
            drainAlone();
        }
        return out;
    }

    /** Waits for a result of {@link #submitAll}; the item's own failure is thrown unchanged. */
    public static <R> R await(CompletableFuture<R> result) {
        try {
            return result.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the commit", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(cause);
        }
    }

    private void run() {
        List<Pending<T, R>> taken = new ArrayList<>(maxBatch);
        while (open || !queue.isEmpty()) {
            try {
                Pending<T, R> first = queue.poll(200, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                taken.add(first);
                queue.drainTo(taken, maxBatch - 1);
                if (deadline != null) {
                    writing = new Writing<>(List.copyOf(taken), System.nanoTime());
                }
                write(taken);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (Throwable t) {
                // write completes every future; this is only a guard so the writer never dies
                LOG.error("Group commit writer failed unexpectedly", t);
                taken.forEach(p -> p.result.completeExceptionally(t));
            } finally {
                taken.clear();
                writing = null;
            }
        }
        drainAlone();
    }

    /** Fails the callers that have waited past the deadline (the class comment), until the writer has stopped. */
    private void watch() {
        long deadlineNanos = deadline.toNanos();
        long tick = Math.max(10, Math.min(1000, deadline.toMillis() / 10));
        while (writer.isAlive()) {
            try {
                Thread.sleep(tick);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            int unknown = 0;
            Writing<T, R> current = writing;
            if (current != null && now - current.since > deadlineNanos) {
                for (Pending<T, R> p : current.items) {
                    if (p.result.completeExceptionally(new LocalTransaction.OutcomeUnknown(name + ": the database did"
                            + " not answer this item's commit within " + deadline + "; it may have been committed"))) {
                        unknown++;
                    }
                }
            }
            int withdrawn = 0;
            Pending<T, R> head;
            while ((head = queue.peek()) != null && now - head.queuedAt > deadlineNanos) {
                if (queue.remove(head)) {
                    head.result.completeExceptionally(new NotWritten(name + ": waited " + deadline + " behind a"
                            + " commit the database did not answer; not written"));
                    withdrawn++;
                }
            }
            if ((unknown > 0 || withdrawn > 0) && pace.tryWarn()) {
                LOG.warnf("%s: the database has not answered a commit for %s (platform.database.commit-deadline):"
                        + " %d callers were answered that theirs may have happened, %d that theirs did not (this"
                        + " warning at most every 10 s)", name, deadline, unknown, withdrawn);
            }
        }
    }

    private void write(List<Pending<T, R>> taken) {
        if (taken.size() > 1) {
            try {
                List<R> results = batch.apply(taken.stream().map(Pending::item).toList());
                for (int i = 0; i < taken.size(); i++) {
                    taken.get(i).result.complete(results.get(i));
                }
                return;
            } catch (LocalTransaction.OutcomeUnknown e) {
                taken.forEach(p -> p.result.completeExceptionally(e));
                return;
            } catch (RuntimeException e) {
                LOG.debugf(e, "A batch of %d failed; writing each alone", taken.size());
            }
        }
        taken.forEach(this::writeAlone);
    }

    private void writeAlone(Pending<T, R> p) {
        try {
            p.result.complete(batch.apply(List.of(p.item)).get(0));
        } catch (Throwable t) {
            p.result.completeExceptionally(t);
        }
    }

    private void drainAlone() {
        Pending<T, R> p;
        while ((p = queue.poll()) != null) {
            writeAlone(p);
        }
    }

    /** Items waiting for the next batch. */
    public int queued() {
        return queue.size();
    }

    /** Writes what is queued, then stops the writer; later submits are refused. */
    @Override
    public void close() {
        open = false;
        try {
            writer.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        drainAlone();
    }
}
