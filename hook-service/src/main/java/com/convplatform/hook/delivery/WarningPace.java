package com.convplatform.hook.delivery;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** Lets a repeated warning through at most once per period, from any number of threads. */
final class WarningPace {
    private final long periodNanos;
    private final AtomicLong last = new AtomicLong(); // 0: never

    WarningPace(Duration period) {
        this.periodNanos = period.toNanos();
    }

    /** True for the caller that may warn now; false while the last warning is younger than the period. */
    boolean tryWarn() {
        long now = System.nanoTime();
        long before = last.get();
        return (before == 0 || now - before >= periodNanos) && last.compareAndSet(before, now == 0 ? 1 : now);
    }
}
