package com.convplatform.support;

import java.time.Duration;

import jakarta.inject.Singleton;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import io.quarkus.runtime.Startup;

/**
 * How long a request waits for its group commit ({@code platform.database.commit-deadline}, default 35 s: the
 * connections' {@code lock_timeout} of 30 s, the longest a healthy database makes a statement wait, and 5 s more).
 * Past it the request is answered 503 ({@link GroupCommit}'s deadline): {@code OUTCOME_UNKNOWN} when its commit was on
 * its way, {@code DATABASE_UNAVAILABLE} when it was still queued and was withdrawn. Checked at start.
 */
@Singleton
@Startup
public class CommitDeadline {
    public static final String KEY = "platform.database.commit-deadline";
    private final Duration value;

    public CommitDeadline(@ConfigProperty(name = KEY, defaultValue = "35s") Duration value,
            @ConfigProperty(name = "quarkus.application.name") String service) {
        ConfigChecks.of(service).positive(KEY, value).throwIfAny();
        this.value = value;
    }

    public Duration get() {
        return value;
    }
}
