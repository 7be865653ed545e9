package com.convplatform.crypto.testing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * What the services' load tests share: the crypto ceiling of this machine (one operation on every core) and
 * percentiles of recorded latencies. Load tests are programs run by each service's {@code load-test/run.sh}, never by
 * the build.
 */
public final class LoadMeasure {
    private LoadMeasure() {
    }

    /** One operation whose rate is measured. */
    public interface Op {
        void run() throws Exception;
    }

    /**
     * Runs {@code op} on every core for {@code seconds} (after one second of warm-up) and returns operations per
     * second in total.
     */
    public static double ceiling(Op op, int seconds) throws Exception {
        int cores = Runtime.getRuntime().availableProcessors();
        for (long warm = System.nanoTime() + 1_000_000_000L; System.nanoTime() < warm;) {
            op.run();
        }
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        ExecutorService pool = Executors.newFixedThreadPool(cores);
        List<Future<Long>> fs = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < cores; i++) {
            fs.add(pool.submit(() -> {
                long n = 0;
                while (System.nanoTime() < end) {
                    op.run();
                    n++;
                }
                return n;
            }));
        }
        long total = 0;
        for (Future<Long> f : fs) {
            total += f.get();
        }
        pool.shutdown();
        return total / ((System.nanoTime() - start) / 1e9);
    }

    /** The {@code q} quantile (0..1) of latencies in nanoseconds, in milliseconds; 0 when there are none. */
    public static double percentileMs(long[] nanos, double q) {
        if (nanos.length == 0) {
            return 0;
        }
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, (int) (sorted.length * q))] / 1e6;
    }
}
