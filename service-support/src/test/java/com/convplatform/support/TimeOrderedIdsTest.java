package com.convplatform.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import org.junit.jupiter.api.Test;

class TimeOrderedIdsTest {

    @Test
    void anIdIsAVersion7UuidCarryingItsMillisecond() {
        long millis = 1_764_000_000_123L;
        UUID id = UUID.fromString(TimeOrderedIds.next(millis));
        assertEquals(7, id.version());
        assertEquals(2, id.variant()); // RFC 9562 (IETF) variant
        assertEquals(millis, id.getMostSignificantBits() >>> 16);
    }

    @Test
    void idsOfLaterMillisecondsSortAfterEarlierOnesAsTextAndAllDiffer() {
        List<String> ids = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (long millis = 1_764_000_000_000L; millis < 1_764_000_000_000L + 2_000; millis += 1) {
            for (int i = 0; i < 5; i++) {
                String id = TimeOrderedIds.next(millis);
                assertTrue(seen.add(id), "duplicate id " + id);
                if (i == 0) {
                    ids.add(id);
                }
            }
        }
        for (int i = 1; i < ids.size(); i++) {
            assertTrue(ids.get(i - 1).compareTo(ids.get(i)) < 0, ids.get(i - 1) + " !< " + ids.get(i));
        }
        assertEquals(36, ids.get(0).length());
    }

    @Test
    void theLowestIdOfAMillisecondSortsAtOrBelowEveryIdMadeThenAndAboveEveryIdMadeBefore() {
        long millis = 1_764_000_000_123L;
        UUID lowest = TimeOrderedIds.lowest(java.time.Instant.ofEpochMilli(millis));
        for (int i = 0; i < 1000; i++) {
            assertTrue(UUID.fromString(TimeOrderedIds.next(millis)).toString().compareTo(lowest.toString()) >= 0);
            assertTrue(UUID.fromString(TimeOrderedIds.next(millis - 1)).toString().compareTo(lowest.toString()) < 0);
        }
        assertEquals(java.time.Instant.ofEpochMilli(millis), TimeOrderedIds.time(TimeOrderedIds.next(millis)));
        assertEquals(java.time.Instant.EPOCH, TimeOrderedIds.time(UUID.randomUUID().toString()));
        assertEquals(java.time.Instant.EPOCH, TimeOrderedIds.time("not an id"));
    }
}
