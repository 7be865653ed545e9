package com.convplatform.console.web;

import java.time.Duration;
import java.time.Instant;

/** The warning colour of a figure on the overview: ok, warn (act soon) or bad (act now). */
public final class Levels {
    public static final String OK = "ok";
    public static final String WARN = "warn";
    public static final String BAD = "bad";

    private Levels() {
    }

    /** A certificate or key: bad when expired or within 7 days, warn within 30. */
    public static String expiry(Instant notAfter, Instant now) {
        if (notAfter == null) {
            return WARN;
        }
        Duration left = Duration.between(now, notAfter);
        return left.compareTo(Duration.ofDays(7)) < 0 ? BAD : left.compareTo(Duration.ofDays(30)) < 0 ? WARN : OK;
    }

    /**
     * How long the oldest undelivered event may wait before its tile turns to warn: a delivery is tried at once, so one
     * pending for over a minute has failed at least once (or its endpoint is disabled).
     */
    public static final Duration UNDELIVERED_WARNING = Duration.ofMinutes(1);

    /** The oldest undelivered event: warn after {@link #UNDELIVERED_WARNING} waiting, bad after an hour. */
    public static String waiting(Instant since, Instant now) {
        if (since == null) {
            return OK;
        }
        Duration d = Duration.between(since, now);
        return d.compareTo(Duration.ofHours(1)) > 0 ? BAD : d.compareTo(UNDELIVERED_WARNING) > 0 ? WARN : OK;
    }

    /** A hook endpoint: bad when disabled, warn when enabled but its last attempts failed, ok otherwise. */
    public static String endpoint(boolean enabled, int consecutiveFailures) {
        return !enabled ? BAD : consecutiveFailures > 0 ? WARN : OK;
    }

    /** How long before its rotate-by date the JWT signing key's tile turns to warn. */
    public static final Duration ROTATION_WARNING = Duration.ofDays(14);

    /** The JWT signing key: bad once its rotate-by date has passed, warn within {@link #ROTATION_WARNING} of it. */
    public static String rotation(Instant rotateBy, Instant now) {
        if (rotateBy == null) {
            return WARN;
        }
        return !now.isBefore(rotateBy) ? BAD : now.plus(ROTATION_WARNING).isAfter(rotateBy) ? WARN : OK;
    }

    /** upload-service's outbox: warn once its oldest event has waited longer than upload.outbox.stuck-after. */
    public static String outbox(long oldestAgeSeconds, long stuckAfterSeconds) {
        return oldestAgeSeconds > stuckAfterSeconds ? WARN : OK;
    }

    /** A count that should be zero: bad (dead letters) or warn (held) above it. */
    public static String zero(long n, String level) {
        return n == 0 ? OK : level;
    }
}
