package com.convplatform.console;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;

import com.convplatform.console.security.ConsoleClock;

/** The console's clock in the tests: real time, moved forward by a test instead of waiting (a lock, an idle session). */
@Alternative
@Priority(1)
@ApplicationScoped
public class TestClock extends ConsoleClock {
    private final AtomicReference<Duration> ahead = new AtomicReference<>(Duration.ZERO);
    private volatile Instant frozen;

    @Override
    public Instant now() {
        return (frozen != null ? frozen : Instant.now()).plus(ahead.get());
    }

    /**
     * Stops the clock where it is (never earlier: what a test moved it past stays past): from now on only
     * {@link #advance} moves it, however slow the machine.
     */
    public synchronized void freeze() {
        Instant at = now();
        ahead.set(Duration.ZERO);
        frozen = at;
    }

    public void advance(Duration d) {
        ahead.updateAndGet(a -> a.plus(d));
    }
}
