package com.convplatform.support;

import java.time.Clock;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** The one clock of each service (UTC); tests of plain classes pass clocks of their own. */
public class ClockProducer {
    @Produces
    @Singleton
    Clock clock() {
        return Clock.systemUTC();
    }
}
