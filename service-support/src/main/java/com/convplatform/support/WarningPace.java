package com.convplatform.support;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** Lets a repeated warning through at most once per period, from any number of threads. */
public final class WarningPace {
    private final long periodNanos;
    private final AtomicLong last = new AtomicLong(); // 0: never

    public WarningPace(Duration period) {
        this.periodNanos = period.toNanos();
    }

    /** True for the caller that may warn now; false while the last warning is younger than the period. */
    public boolean tryWarn() {
        long now = System.nanoTime();
        long before = last.get();
        return (before == 0 || now - before >= periodNanos) && last.compareAndSet(before, now == 0 ? 1 : now);
    }

    /** Forgets the last warning: the next {@link #tryWarn()} is let through, however soon. */
    public void reset() {
        last.set(0);
    }
}
