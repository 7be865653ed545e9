package com.convplatform.crypto.testing;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Waits for a condition instead of for a fixed time: returns as soon as it holds, fails the test if it never does. */
public final class Await {
    private Await() {
    }

    /** Polls {@code condition} about every millisecond until it holds; throws {@link AssertionError} at the limit. */
    public static void until(Duration limit, BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("Waited " + limit.toMillis() + " ms for " + what);
            }
            LockSupport.parkNanos(1_000_000);
        }
    }
}
