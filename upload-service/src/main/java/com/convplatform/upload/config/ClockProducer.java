package com.convplatform.upload.config;

import java.time.Clock;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** The one clock of the service (UTC). */
public class ClockProducer {
    @Produces
    @Singleton
    Clock clock() {
        return Clock.systemUTC();
    }
}
