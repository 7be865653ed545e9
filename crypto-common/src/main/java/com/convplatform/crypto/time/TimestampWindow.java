package com.convplatform.crypto.time;

import static com.convplatform.crypto.FailureCode.TIMESTAMP_MALFORMED;
import static com.convplatform.crypto.FailureCode.TIMESTAMP_OUT_OF_WINDOW;

import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.ResolverStyle;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

import com.convplatform.crypto.VerificationException;

/**
 * The freshness check of spec 5.1 step 4 and 5.2 step 5: a strict {@code YYYY-MM-DDThh:mm:ssZ} timestamp must lie
 * within N seconds of the clock, in either direction. The boundary is inside and exact to the millisecond: a difference
 * of exactly N seconds is accepted, N seconds and 1 millisecond is refused. The clock is read as it is, with its
 * fraction (it used to be rounded down to whole seconds, which let a timestamp up to N + 0.999 s old through).
 */
public final class TimestampWindow {
    /** Spec 5.1 and section 8: management requests. */
    public static final Duration MANAGEMENT = Duration.ofSeconds(150);
    /** Spec 5.2 and section 8: hook requests. */
    public static final Duration HOOK = Duration.ofSeconds(120);

    /** The form, {@code d} for an ASCII digit. */
    private static final String SHAPE = "dddd-dd-ddTdd:dd:ddZ";
    private static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss'Z'")
            .withResolverStyle(ResolverStyle.STRICT);

    private final Duration tolerance;
    private final Clock clock;

    public TimestampWindow(Duration tolerance, Clock clock) {
        this.tolerance = Objects.requireNonNull(tolerance, "tolerance");
        this.clock = Objects.requireNonNull(clock, "clock");
        if (tolerance.isNegative()) {
            throw new IllegalArgumentException("tolerance must not be negative");
        }
    }

    /** Parses a strict {@code YYYY-MM-DDThh:mm:ssZ} timestamp. */
    public static Instant parse(String value) throws VerificationException {
        if (value == null || value.isEmpty()) {
            throw new VerificationException(TIMESTAMP_MALFORMED, "The timestamp is missing");
        }
        if (!shaped(value)) {
            throw new VerificationException(TIMESTAMP_MALFORMED, "The timestamp '" + abbreviate(value)
                    + "' is not of the form YYYY-MM-DDThh:mm:ssZ (UTC, whole seconds, capital T and Z)");
        }
        try {
            // The shape is checked, so the fields are read as digits: LocalDateTime.of refuses what the strict
            // formatter refused (month 13, February 30, hour 24). The check fell from 2.4 % of the token path's JFR
            // samples to 0.3 % (docs/capacity.md, an eighth machine).
            return LocalDateTime.of(digits(value, 0, 4), digits(value, 5, 7), digits(value, 8, 10),
                    digits(value, 11, 13), digits(value, 14, 16), digits(value, 17, 19)).toInstant(ZoneOffset.UTC);
        } catch (DateTimeException e) {
            throw new VerificationException(TIMESTAMP_MALFORMED,
                    "The timestamp '" + value + "' is not a real date and time", e);
        }
    }

    private static boolean shaped(String value) {
        if (value.length() != SHAPE.length()) {
            return false;
        }
        for (int i = 0; i < SHAPE.length(); i++) {
            char c = value.charAt(i);
            char wanted = SHAPE.charAt(i);
            if (wanted == 'd' ? c < '0' || c > '9' : c != wanted) {
                return false;
            }
        }
        return true;
    }

    private static int digits(String value, int from, int to) {
        int n = 0;
        for (int i = from; i < to; i++) {
            n = n * 10 + value.charAt(i) - '0';
        }
        return n;
    }

    /** Formats an instant as {@code YYYY-MM-DDThh:mm:ssZ}, truncated to the second. */
    public static String format(Instant instant) {
        return FORMAT.format(LocalDateTime.ofInstant(instant.truncatedTo(ChronoUnit.SECONDS), ZoneOffset.UTC));
    }

    /** The current time of {@code clock}, formatted. */
    public static String now(Clock clock) {
        return format(clock.instant());
    }

    /**
     * Checks that {@code value} parses and lies within the window.
     *
     * @return the parsed instant
     */
    public Instant check(String value) throws VerificationException {
        Instant ts = parse(value);
        // Exact to the millisecond: the clock keeps its fraction, so 150.001 s is more than 150 s.
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        Duration skew = Duration.between(ts, now).abs();
        if (skew.compareTo(tolerance) > 0) {
            String direction = ts.isBefore(now) ? "in the past" : "in the future";
            throw new VerificationException(TIMESTAMP_OUT_OF_WINDOW,
                    "The timestamp " + value + " is " + seconds(skew) + " s " + direction + "; at most "
                            + tolerance.toSeconds() + " s either way is accepted (server time " + format(now)
                            + "); sync the clock (NTP) and sign just before sending");
        }
        return ts;
    }

    /** Whole seconds as such (151), otherwise with the milliseconds (150.001). */
    private static String seconds(Duration d) {
        long millis = d.toMillis();
        return millis % 1000 == 0
                ? Long.toString(millis / 1000)
                : String.format(java.util.Locale.ROOT, "%d.%03d",
                        millis / 1000, millis % 1000);
    }

    public Duration tolerance() {
        return tolerance;
    }

    private static String abbreviate(String s) {
        return s.length() <= 40 ? s : s.substring(0, 40) + "...";
    }
}
