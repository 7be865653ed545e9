package com.convplatform.console.security;

import java.time.Instant;

import jakarta.enterprise.context.ApplicationScoped;

/**
 * The time the sessions and the sign-in throttle go by. A bean of its own so that the tests can move it forward (a
 * session's idle timeout, a lock lifting) instead of waiting for the clock.
 */
@ApplicationScoped
public class ConsoleClock {
    public Instant now() {
        return Instant.now();
    }
}
