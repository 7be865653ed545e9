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

    @Override
    public Instant now() {
        return Instant.now().plus(ahead.get());
    }

    public void advance(Duration d) {
        ahead.updateAndGet(a -> a.plus(d));
    }
}
