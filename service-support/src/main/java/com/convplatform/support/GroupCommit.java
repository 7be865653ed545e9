package com.convplatform.support;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;

import org.jboss.logging.Logger;

/**
 * Group commit: callers hand in one item each and wait; one thread writes whatever has queued up meanwhile (at most
 * {@code maxBatch} items) with one call of the batch function, which runs one transaction. Under light load a batch is
 * one item and nothing waits longer than before; under load, many requests share a transaction, so the cost of a
 * commit is paid once for all of them.
 *
 * <p>
 * Two ways to run the batches. With a writer thread (the constructor), that thread waits for items and writes them.
 * With {@link #writtenByCallers} there is no such thread: a caller that has queued its items calls
 * {@link #writeQueued()}, and if no other caller is writing at the time, it writes what is queued, batch after batch,
 * until nothing is; otherwise it returns at once, and the caller that is writing takes its items too. Under light load
 * a writer thread was woken for nearly every item (batches of one), and the wake-up and the switch to it cost as much
 * as a small write; writing on the caller's thread costs neither.
 * <p>
 * {@link #submit} returns only when the item's batch has returned, so a caller's answer still follows its commit.
 * When a batch fails, each of its items is written again alone, so one bad item (or a conflict with another replica)
 * fails only its own caller, with its own exception.
 *
 * @param <T> an item
 * @param <R> the result of one item; the batch function returns one per item, in order
 */
public final class GroupCommit<T, R> implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(GroupCommit.class);

    private record Pending<T, R>(T item, CompletableFuture<R> result) {
    }

    private final LinkedBlockingQueue<Pending<T, R>> queue = new LinkedBlockingQueue<>();
    private final Function<List<T>, List<R>> batch;
    private final int maxBatch;
    /** The writer thread; null when callers write ({@link #writtenByCallers}). */
    private final Thread writer;
    /** A caller is writing (callers-write mode). */
    private final AtomicBoolean callerWriting = new AtomicBoolean();
    private volatile boolean open = true;

    /**
     * @param name the writer thread's name
     * @param maxBatch the most items in one batch
     * @param batch writes the items in one transaction and returns one result per item, in order; throws when
     *        nothing was written
     */
    public GroupCommit(String name, int maxBatch, Function<List<T>, List<R>> batch) {
        this(name, maxBatch, batch, true);
    }

    private GroupCommit(String name, int maxBatch, Function<List<T>, List<R>> batch, boolean writerThread) {
        if (maxBatch < 1) {
            throw new IllegalArgumentException("maxBatch must be at least 1");
        }
        this.batch = batch;
        this.maxBatch = maxBatch;
        if (writerThread) {
            this.writer = new Thread(this::run, name);
            writer.setDaemon(true);
            writer.start();
        } else {
            this.writer = null;
        }
    }

    /**
     * A group commit without a writer thread: the callers write the batches, one caller at a time, in
     * {@link #writeQueued()} (see the class comment). Every {@link #submitAll} must be followed by a
     * {@link #writeQueued()} on the same thread, or its items may wait for the next caller's.
     */
    public static <T, R> GroupCommit<T, R> writtenByCallers(int maxBatch, Function<List<T>, List<R>> batch) {
        return new GroupCommit<>(null, maxBatch, batch, false);
    }

    /** A group commit of writes that have no result of their own ({@link #submit} returns null). */
    public static <T> GroupCommit<T, Void> ofWrites(String name, int maxBatch, Consumer<List<T>> write) {
        return new GroupCommit<>(name, maxBatch, items -> {
            write.accept(items);
            return Collections.nCopies(items.size(), null);
        });
    }

    /**
     * Writes the item in the next batch and returns its result once that batch has returned.
     *
     * @throws RuntimeException the item's own failure (when written alone), unchanged
     */
    public R submit(T item) {
        CompletableFuture<R> result = submitAll(List.of(item)).get(0);
        writeQueued();
        return await(result);
    }

    /**
     * Queues the items together (they go in the same batches, in order, as far as {@code maxBatch} allows) and returns
     * each one's result, complete once its batch has returned. {@link #await} waits for one.
     */
    public List<CompletableFuture<R>> submitAll(List<T> items) {
        if (!open) {
            throw new IllegalStateException("closed");
        }
        List<CompletableFuture<R>> out = new ArrayList<>(items.size());
        List<Pending<T, R>> pending = new ArrayList<>(items.size());
        for (T item : items) {
            CompletableFuture<R> f = new CompletableFuture<>();
            out.add(f);
            pending.add(new Pending<>(item, f));
        }
        queue.addAll(pending);
        if (!open) {
            // closed after the check above: the writer may have gone; write them here
            drainAlone();
        }
        return out;
    }

    /**
     * Waits for a result of {@link #submitAll}.
     *
     * @throws RuntimeException the item's own failure (when written alone), unchanged
     */
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

    /**
     * Callers-write mode: writes what is queued, batch after batch, until nothing is, unless another caller is writing
     * (then returns at once: that caller takes what was queued). After a batch the results are complete, so a caller's
     * own answer does not wait for the batches of others it goes on to write. With a writer thread this does nothing.
     * <p>
     * No item is left behind: a caller that finds another writing has queued its items before it looked, and the
     * writer looks at the queue again after it stops writing.
     */
    public void writeQueued() {
        if (writer != null) {
            return;
        }
        while (!queue.isEmpty() && callerWriting.compareAndSet(false, true)) {
            List<Pending<T, R>> taken = new ArrayList<>(maxBatch);
            try {
                while (queue.drainTo(taken, maxBatch) > 0) {
                    writeGuarded(taken);
                    taken.clear();
                }
            } finally {
                callerWriting.set(false);
            }
        }
    }

    /** Writes a batch; should anything escape {@link #write}, fails the batch's items rather than leave them open. */
    private void writeGuarded(List<Pending<T, R>> taken) {
        try {
            write(taken);
        } catch (Throwable t) {
            // write completes every future; this is only a guard
            LOG.error("Group commit writer failed unexpectedly", t);
            taken.forEach(p -> p.result.completeExceptionally(t));
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
                writeGuarded(taken);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } finally {
                taken.clear();
            }
        }
        drainAlone();
    }

    private void write(List<Pending<T, R>> taken) {
        if (taken.size() > 1) {
            try {
                List<R> results = batch.apply(taken.stream().map(Pending::item).toList());
                for (int i = 0; i < taken.size(); i++) {
                    taken.get(i).result.complete(results.get(i));
                }
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
        if (writer != null) {
            try {
                writer.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        drainAlone();
    }
}
