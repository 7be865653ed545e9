package com.convplatform.support;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A concurrent map of values that can always be looked up again, held to a bound: when it is full, the next put clears
 * it. Meant for lookups whose entries never go stale (or are checked on use), where a rare refill is cheaper than
 * tracking recency.
 */
public final class BoundedCache<K, V> {
    private final int max;
    private final Map<K, V> entries = new ConcurrentHashMap<>();

    public BoundedCache(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("max must be at least 1");
        }
        this.max = max;
    }

    /** The value held for {@code key}, or null. */
    public V get(K key) {
        return entries.get(key);
    }

    /** Holds {@code value} for {@code key}, clearing everything first when the cache is full. */
    public void put(K key, V value) {
        if (entries.size() >= max) {
            entries.clear();
        }
        entries.put(key, value);
    }

    public void remove(K key) {
        entries.remove(key);
    }

    public int size() {
        return entries.size();
    }
}
