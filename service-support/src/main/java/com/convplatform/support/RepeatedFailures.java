package com.convplatform.support;

import java.time.Duration;

import org.jboss.logging.Logger;

import io.micrometer.core.instrument.Counter;

/**
 * A task tried again and again on a schedule that may fail many times in a row (its database out of reach): every
 * failure counted, a warning at most once a minute with the number since the last one (not an error and a stack trace
 * per try), and one line once it works again.
 */
public final class RepeatedFailures {
    private final Logger log;
    private final String task;
    private final Counter counter;
    private final String counterName;
    private final WarningPace pace = new WarningPace(Duration.ofMinutes(1));
    private int sinceWarning;
    private boolean failing;

    /**
     * @param task what is tried, as the subject of "... failed" and "... works again"
     * @param counter counts every failure; the warning names it as Prometheus shows it
     */
    public RepeatedFailures(Logger log, String task, Counter counter) {
        this.log = log;
        this.task = task;
        this.counter = counter;
        this.counterName = counter.getId().getName().replace('.', '_') + "_total";
    }

    /** A try failed; {@code meanwhile} says what waits until one works. */
    public synchronized void failed(RuntimeException e, String meanwhile) {
        counter.increment();
        failing = true;
        sinceWarning++;
        if (pace.tryWarn()) {
            log.warnf(e, "%s failed (%d times since the last such warning; at most one a minute, %s counts them all);"
                    + " %s", task, sinceWarning, counterName, meanwhile);
            sinceWarning = 0;
        }
    }

    /** A try worked: after failures, said once, and the next failure is warned of at once. */
    public synchronized void succeeded() {
        if (failing) {
            log.infof("%s works again", task);
            failing = false;
            sinceWarning = 0;
            pace.reset();
        }
    }
}
