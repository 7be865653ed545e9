package com.convplatform.crypto.time;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.convplatform.crypto.FailureCode;
import com.convplatform.crypto.VerificationException;

/** Issue 2, rule f: the strict format and the inclusive window, exact to the millisecond, against a fixed clock. */
class TimestampWindowTest {
    static final Instant NOW = Instant.parse("2026-11-22T10:00:00Z");
    static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

    @Test
    void theStrictFormatParses() throws Exception {
        assertEquals(NOW, TimestampWindow.parse("2026-11-22T10:00:00Z"));
        assertEquals(Instant.parse("2024-02-29T23:59:59Z"), TimestampWindow.parse("2024-02-29T23:59:59Z"));
        assertEquals(Instant.parse("2026-01-01T00:00:00Z"), TimestampWindow.parse("2026-01-01T00:00:00Z"));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "2026-11-22t10:00:00Z", // lower-case t
            "2026-11-22T10:00:00z", // lower-case z
            "2026-11-22T10:00:00", // no zone
            "2026-11-22T10:00:00.000Z", // fraction
            "2026-11-22T10:00:00.5Z",
            "2026-11-22T10:00:00+00:00", // offsets, even zero
            "2026-11-22T10:00:00+0000",
            "2026-11-22T12:00:00+02:00",
            "2026-11-22T10:00:00-00:00",
            "2026-11-22 10:00:00Z", // space instead of T
            "2026-11-22T10:00Z", // no seconds
            "2026-11-22", // date only
            "20261122T100000Z", // basic format
            "26-11-22T10:00:00Z", // two-digit year
            "+2026-11-22T10:00:00Z",
            "2026-11-22T10:00:00ZZ",
            " 2026-11-22T10:00:00Z", // white space
            "2026-11-22T10:00:00Z ",
            "2026-11-22T10:00:00Z\n",
            "2026-1-22T10:00:00Z", // unpadded
            "2026-11-22T1:00:00Z",
            "２０２６-11-22T10:00:00Z", // non-ASCII digits
            "1764928800", // epoch seconds
            "not a time"})
    void anythingButTheStrictFormatIsMalformed(String value) {
        VerificationException e = assertThrows(VerificationException.class, () -> TimestampWindow.parse(value));
        assertEquals(FailureCode.TIMESTAMP_MALFORMED, e.code());
        assertTrue(e.getMessage().contains("YYYY-MM-DDThh:mm:ssZ"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "2026-02-30T10:00:00Z", // February 30
            "2025-02-29T10:00:00Z", // not a leap year
            "2026-04-31T10:00:00Z",
            "2026-13-01T10:00:00Z",
            "2026-00-10T10:00:00Z",
            "2026-11-00T10:00:00Z",
            "2026-11-22T24:00:00Z", // end-of-day form
            "2026-11-22T10:60:00Z",
            "2016-12-31T23:59:60Z"}) // leap second: not representable, refused
    void impossibleDatesAndTimesAreMalformed(String value) {
        VerificationException e = assertThrows(VerificationException.class, () -> TimestampWindow.parse(value));
        assertEquals(FailureCode.TIMESTAMP_MALFORMED, e.code());
        assertTrue(e.getMessage().contains("is not a real date and time"), e.getMessage());
    }

    @Test
    void missingTimestampIsMalformed() {
        TimestampWindow w = new TimestampWindow(TimestampWindow.MANAGEMENT, CLOCK);
        assertEquals("The timestamp is missing",
                assertThrows(VerificationException.class, () -> w.check(null)).getMessage());
        assertEquals(FailureCode.TIMESTAMP_MALFORMED,
                assertThrows(VerificationException.class, () -> w.check("")).code());
    }

    @Test
    void managementWindowIs150SecondsInclusiveBothWays() throws Exception {
        assertWindow(new TimestampWindow(TimestampWindow.MANAGEMENT, CLOCK), 150);
    }

    @Test
    void hookWindowIs120SecondsInclusiveBothWays() throws Exception {
        assertWindow(new TimestampWindow(TimestampWindow.HOOK, CLOCK), 120);
    }

    private static void assertWindow(TimestampWindow w, int seconds) throws Exception {
        assertEquals(Duration.ofSeconds(seconds), w.tolerance());
        for (int s : new int[]{-seconds, -seconds + 1, -1, 0, 1, seconds - 1, seconds}) {
            Instant ts = NOW.plusSeconds(s);
            assertEquals(ts, w.check(TimestampWindow.format(ts)), "offset " + s);
        }
        VerificationException past = assertThrows(VerificationException.class,
                () -> w.check(TimestampWindow.format(NOW.minusSeconds(seconds + 1))));
        assertEquals(FailureCode.TIMESTAMP_OUT_OF_WINDOW, past.code());
        assertTrue(past.getMessage().contains((seconds + 1) + " s in the past; at most " + seconds
                + " s either way is accepted (server time 2026-11-22T10:00:00Z)"), past.getMessage());
        VerificationException future = assertThrows(VerificationException.class,
                () -> w.check(TimestampWindow.format(NOW.plusSeconds(seconds + 1))));
        assertEquals(FailureCode.TIMESTAMP_OUT_OF_WINDOW, future.code());
        assertTrue(future.getMessage().contains((seconds + 1) + " s in the future"), future.getMessage());
        assertEquals(FailureCode.TIMESTAMP_OUT_OF_WINDOW, assertThrows(VerificationException.class,
                () -> w.check("2000-01-01T00:00:00Z")).code());
    }

    @Test
    void theWindowIsExactToTheMillisecond() throws Exception {
        // Issue 39: the clock used to be rounded down to whole seconds, so 150.999 s old was accepted.
        for (Duration window : new Duration[]{TimestampWindow.MANAGEMENT, TimestampWindow.HOOK}) {
            long n = window.toSeconds();
            Instant ts = NOW.minusSeconds(n);
            new TimestampWindow(window, Clock.fixed(NOW, ZoneOffset.UTC)).check(TimestampWindow.format(ts));
            VerificationException past = assertThrows(VerificationException.class,
                    () -> new TimestampWindow(window, Clock.fixed(NOW.plusMillis(1), ZoneOffset.UTC))
                            .check(TimestampWindow.format(ts)));
            assertEquals(FailureCode.TIMESTAMP_OUT_OF_WINDOW, past.code());
            assertTrue(past.getMessage().contains(n + ".001 s in the past; at most " + n + " s"), past.getMessage());
            Instant ahead = NOW.plusSeconds(n);
            new TimestampWindow(window, Clock.fixed(NOW, ZoneOffset.UTC)).check(TimestampWindow.format(ahead));
            VerificationException future = assertThrows(VerificationException.class,
                    () -> new TimestampWindow(window, Clock.fixed(NOW.minusMillis(1), ZoneOffset.UTC))
                            .check(TimestampWindow.format(ahead)));
            assertTrue(future.getMessage().contains(n + ".001 s in the future"), future.getMessage());
        }
        // a clock 999 ms into the second: the timestamp 150 s before that second is 150.999 s old
        TimestampWindow late = new TimestampWindow(TimestampWindow.MANAGEMENT,
                Clock.fixed(NOW.plusMillis(999), ZoneOffset.UTC));
        assertThrows(VerificationException.class, () -> late.check(TimestampWindow.format(NOW.minusSeconds(150))));
        late.check(TimestampWindow.format(NOW.minusSeconds(149)));
        late.check(TimestampWindow.format(NOW.plusSeconds(150))); // 149.001 s ahead
        assertThrows(VerificationException.class, () -> late.check(TimestampWindow.format(NOW.plusSeconds(151))));
    }

    @Test
    void formatWritesTheStrictFormTruncatedToTheSecond() {
        assertEquals("2026-11-22T10:00:00Z", TimestampWindow.format(NOW.plusMillis(999)));
        assertEquals("2026-11-22T10:00:00Z", TimestampWindow.now(CLOCK));
        assertEquals("0999-01-02T03:04:05Z", TimestampWindow.format(Instant.parse("0999-01-02T03:04:05Z")));
    }

    @Test
    void aNegativeToleranceIsAConfigurationError() {
        assertThrows(IllegalArgumentException.class, () -> new TimestampWindow(Duration.ofSeconds(-1), CLOCK));
    }
}
