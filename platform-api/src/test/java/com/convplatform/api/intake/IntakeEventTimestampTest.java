package com.convplatform.api.intake;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Random;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The intake's timestamp check reads an ordinary time's digits itself and leaves the rest to {@link Instant#parse}:
 * it must decide every timestamp as the UTC pattern and Instant.parse together decided it before.
 */
class IntakeEventTimestampTest {
    private static final Pattern UTC_TIME = Pattern.compile("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?Z");

    /** The check as it was: the pattern, then Instant.parse. */
    private static boolean before(String timestamp) {
        try {
            return UTC_TIME.matcher(timestamp).matches() && Instant.parse(timestamp) != null;
        } catch (DateTimeParseException e) {
            return false;
        }
    }

    private static boolean now(String timestamp) {
        return new IntakeEvent(null, "a", "u", 0L, "b", 1L, "user", timestamp, null, null).isTimestampValid();
    }

    @ParameterizedTest
    @ValueSource(strings = {"2026-11-22T10:00:00Z", "2026-11-22T10:00:00.123Z", "2026-11-22T10:00:00.123456789Z",
            "2024-02-29T23:59:59Z", "2025-02-29T10:00:00Z", "2026-02-30T10:00:00Z", "2026-04-31T10:00:00Z",
            "2026-13-01T10:00:00Z", "2026-00-10T10:00:00Z", "2026-11-00T10:00:00Z", "2026-11-22T24:00:00Z",
            "2026-11-22T24:00:01Z", "2026-11-22T25:00:00Z", "2026-11-22T10:60:00Z", "2016-12-31T23:59:60Z",
            "2016-12-31T23:59:60.5Z", "2016-12-31T12:59:60Z", "2026-11-22T10:00:61Z", "0000-01-01T00:00:00Z",
            "9999-12-31T23:59:59.999Z", "2026-11-22T10:00:00.Z", "2026-11-22T10:00:00.1234567890Z",
            "2026-11-22T10:00:00+02:00", "2026-11-22t10:00:00z", "2026-11-22 10:00:00Z", "2026-11-22T10:00Z"})
    void decidesAsInstantParseDid(String timestamp) {
        assertEquals(before(timestamp), now(timestamp), timestamp);
    }

    /** Random fields around every edge: 0 to 99 in each of month, day, hour, minute and second. */
    @Test
    void decidesRandomTimesAsInstantParseDid() {
        Random random = new Random(42);
        for (int i = 0; i < 20_000; i++) {
            String timestamp = String.format("%04d-%02d-%02dT%02d:%02d:%02d%sZ", random.nextInt(10_000),
                    random.nextInt(14), random.nextInt(33), random.nextInt(26), random.nextInt(62),
                    random.nextInt(62), random.nextBoolean() ? "" : "." + random.nextInt(1000));
            assertEquals(before(timestamp), now(timestamp), timestamp);
        }
    }
}
