package com.convplatform.upload.message;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import com.convplatform.upload.config.UploadConfig;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import io.quarkus.runtime.configuration.ConfigurationException;

/**
 * The threads that process uploads whose body has arrived whole (see {@link UploadRoute}): a fixed pool of
 * {@code upload.processing-threads} fed by one queue. Such an upload never waits for its client, only for the disk
 * and the database, so a pool the size of the machine keeps the processors busy, and under load a thread that has
 * finished one upload takes the next one from the queue instead of parking until it is woken for it.
 * <p>
 * Through Quarkus's worker pool, where the other uploads go, each of them woke a parked worker thread and the worker
 * parked again after it: in the 100 KB load test, waking and parking worker threads took 8.5 % of the service's CPU,
 * and 4 % with this pool. With the S3 store every upload waits for the network while its file is sent, so by default
 * there is no such pool ({@link #size} 0) and all uploads use the worker pool, which grows with the waiting.
 * <p>
 * A singleton, not application-scoped: the route calls it for every upload, and needs no client proxy in between.
 */
@Startup
@Singleton
public class UploadThreads {
    private static final Logger LOG = Logger.getLogger(UploadThreads.class);

    private final ThreadPoolExecutor pool;

    public UploadThreads(UploadConfig config, MeterRegistry metrics) {
        int size = size(config, Runtime.getRuntime().availableProcessors());
        if (size == 0) {
            pool = null;
            return;
        }
        AtomicInteger count = new AtomicInteger();
        pool = new ThreadPoolExecutor(size, size, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), task -> {
            Thread t = new Thread(task, "upload-processing-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        Gauge.builder("upload.processing.queued", pool, p -> p.getQueue().size())
                .description("Uploads received whole and waiting for a processing thread").register(metrics);
    }

    /**
     * The pool's size: {@code upload.processing-threads} when set; otherwise the number of processors with the local
     * store, and 0 (no pool) with the S3 store.
     */
    static int size(UploadConfig config, int processors) {
        int size = config.processingThreads().orElse("s3".equals(config.storage().kind()) ? 0 : processors);
        if (size < 0) {
            throw new ConfigurationException(
                    "upload.processing-threads must be 0 or more; got " + size + " (env UPLOAD_PROCESSING_THREADS)");
        }
        return size;
    }

    /**
     * Runs {@code work} on one of the pool's threads; false when there is no pool or it has stopped, so the caller
     * runs it elsewhere.
     */
    boolean execute(Runnable work) {
        if (pool == null) {
            return false;
        }
        try {
            pool.execute(work);
            return true;
        } catch (RejectedExecutionException stopping) {
            return false;
        }
    }

    /** Lets the uploads already taken in finish (for up to 10 s). */
    @PreDestroy
    void stop() {
        if (pool == null) {
            return;
        }
        pool.shutdown();
        try {
            if (!pool.awaitTermination(10, TimeUnit.SECONDS)) {
                LOG.warnf("%d uploads were still being processed at shutdown", pool.getActiveCount());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
