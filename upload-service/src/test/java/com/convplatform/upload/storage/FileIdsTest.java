package com.convplatform.upload.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

import org.junit.jupiter.api.Test;

class FileIdsTest {
    static Clock at(long millis) {
        return Clock.fixed(Instant.ofEpochMilli(millis), ZoneOffset.UTC);
    }

    @Test
    void anIdIsTheTimeInMillisecondsThen128RandomBits() {
        long millis = 1_795_590_000_123L;
        String id = FileIds.next(at(millis));
        assertEquals(44, id.length());
        assertTrue(id.matches("[0-9a-f]{44}"), id);
        assertEquals(millis, Long.parseLong(id.substring(0, 12), 16));
        assertNotEquals(id.substring(12), FileIds.next(at(millis)).substring(12), "the random part repeats");
    }

    @Test
    void laterIdsSortAfterEarlierOnes() {
        String earlier = FileIds.next(at(1_000_000_000_000L));
        String later = FileIds.next(at(1_000_000_000_001L));
        assertTrue(earlier.compareTo(later) < 0, earlier + " " + later);
        // ten years on, still twelve digits and still in order
        assertTrue(later.compareTo(FileIds.next(at(1_315_360_000_000L))) < 0);
    }

    @Test
    void validIdsAreLowerCaseHexOfEitherLength() {
        assertTrue(FileIds.isValid(FileIds.next(Clock.systemUTC())));
        assertTrue(FileIds.isValid("0123456789abcdef0123456789abcdef"));
        for (String bad : new String[]{null, "", "0123456789ABCDEF0123456789abcdef", "0123456789abcdef0123456789abcde",
                "0123456789abcdef0123456789abcdef0", "../0123456789abcdef0123456789abcd", "g".repeat(32),
                "0".repeat(43), "0".repeat(45), "0123456789abcdef0123456789abcdef/..", "0".repeat(31) + " "}) {
            assertFalse(FileIds.isValid(bad), String.valueOf(bad));
        }
    }
}
