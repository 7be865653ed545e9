package com.convplatform.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BoundedCacheTest {
    @Test
    void holdsValuesUpToItsBoundThenStartsAgain() {
        BoundedCache<String, Integer> c = new BoundedCache<>(3);
        for (int i = 0; i < 3; i++) {
            c.put("k" + i, i);
        }
        assertEquals(2, c.get("k2"));
        c.put("k3", 3);
        assertEquals(1, c.size(), "full: cleared before the new entry");
        assertNull(c.get("k0"));
        assertEquals(3, c.get("k3"));
        c.remove("k3");
        assertNull(c.get("k3"));
        for (int i = 0; i < 100; i++) {
            c.put("x" + i, i);
            assertTrue(c.size() <= 3);
        }
        assertThrows(IllegalArgumentException.class, () -> new BoundedCache<>(0));
    }
}
