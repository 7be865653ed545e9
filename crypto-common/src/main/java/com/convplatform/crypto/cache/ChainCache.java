package com.convplatform.crypto.cache;

import static com.convplatform.crypto.FailureCode.CERT_FETCH_FAILED;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.chain.ValidatedChain;

/**
 * A bounded cache of validated chains keyed by normalised certificate URL. At most one download per URL runs at a
 * time (other callers wait for it); entries are dropped least-recently-used beyond the size limit and reloaded after
 * their maximum age. Validity is not decided here: callers re-check {@link ValidatedChain#checkValidAt} on every hit.
 * Failures are not cached.
 */
public final class ChainCache {
    /** Loads and validates the chain for a key. */
    @FunctionalInterface
    public interface Loader {
        ValidatedChain load(String key) throws VerificationException;
    }

    /**
     * A cached chain, when it was loaded (its age, against the maximum), and when a download of it was last tried (a
     * failed refresh waits from there; it never makes the chain younger).
     */
    public record Entry(ValidatedChain chain, Instant loadedAt, Instant triedAt) {
        public Entry(ValidatedChain chain, Instant loadedAt) {
            this(chain, loadedAt, loadedAt);
        }
    }

    private final int maxEntries;
    private final Duration maxAge;
    private final Duration waitLimit;
    private final Clock clock;
    private final Runnable beforeLoad;
    private final Map<String, Entry> entries;
    private final ConcurrentHashMap<String, CompletableFuture<Entry>> inFlight = new ConcurrentHashMap<>();

    /**
     * @param maxEntries most URLs kept
     * @param maxAge an entry older than this is downloaded again
     * @param waitLimit how long a caller waits for another caller's download of the same URL
     */
    public ChainCache(int maxEntries, Duration maxAge, Duration waitLimit, Clock clock) {
        this(maxEntries, maxAge, waitLimit, clock, () -> {
        });
    }

    /**
     * @param beforeLoad run before a key is loaded or another caller's load of it awaited, both of which may block:
     *        it may throw, so that a thread that must not block never starts or awaits a download
     */
    public ChainCache(int maxEntries, Duration maxAge, Duration waitLimit, Clock clock, Runnable beforeLoad) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries must be at least 1");
        }
        this.maxEntries = maxEntries;
        this.maxAge = Objects.requireNonNull(maxAge, "maxAge");
        this.waitLimit = Objects.requireNonNull(waitLimit, "waitLimit");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.beforeLoad = Objects.requireNonNull(beforeLoad, "beforeLoad");
        this.entries = new LinkedHashMap<>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Entry> eldest) {
                return size() > ChainCache.this.maxEntries;
            }
        };
    }

    /** The cached entry for {@code key}, loading it when absent or too old. */
    public Entry get(String key, Loader loader) throws VerificationException {
        Entry e;
        synchronized (entries) {
            e = entries.get(key);
        }
        if (e != null && !clock.instant().isAfter(e.loadedAt().plus(maxAge))) {
            return e;
        }
        return load(key, loader, e);
    }

    /**
     * The entry for {@code key}, valid now: an entry that is no longer (or not yet) valid is downloaded once more,
     * since the certificate at that URL may have been renewed, and refused when it still is not valid.
     */
    public Entry getValid(String key, Loader loader) throws VerificationException {
        Entry entry = get(key, loader);
        try {
            entry.chain().checkValidAt(clock.instant());
            return entry;
        } catch (VerificationException notValid) {
            Entry again = refresh(key, entry, Duration.ZERO, loader);
            again.chain().checkValidAt(clock.instant());
            return again;
        }
    }

    /**
     * Loads {@code key} again unless another caller already replaced {@code stale} (or the entry is younger than
     * {@code minAge}, in which case the current entry is returned): used once after a signature mismatch, so that a
     * rotated certificate is picked up without letting bad requests trigger a download each.
     */
    public Entry refresh(String key, Entry stale, Duration minAge, Loader loader) throws VerificationException {
        Entry current;
        synchronized (entries) {
            current = entries.get(key);
        }
        if (current != null && current != stale) {
            return current;
        }
        if (stale != null && clock.instant().isBefore(stale.triedAt().plus(minAge))) {
            return stale;
        }
        try {
            return load(key, loader, stale);
        } catch (VerificationException | RuntimeException failed) {
            if (stale != null) {
                // Keep what we had until its maximum age, but count the attempt: the next refresh waits minAge
                // again, so requests with bad signatures cannot turn into one download each while the certificate
                // server is failing, nor keep a chain taken off its URL alive beyond its age.
                synchronized (entries) {
                    entries.putIfAbsent(key, new Entry(stale.chain(), stale.loadedAt(), clock.instant()));
                }
            }
            throw failed;
        }
    }

    /** Removes an entry. */
    public void invalidate(String key) {
        synchronized (entries) {
            entries.remove(key);
        }
    }

    /** Removes every entry whose key matches (an operator's purge). */
    public void invalidateIf(Predicate<String> keys) {
        synchronized (entries) {
            entries.keySet().removeIf(keys);
        }
    }

    public int size() {
        synchronized (entries) {
            return entries.size();
        }
    }

    private Entry load(String key, Loader loader, Entry previous) throws VerificationException {
        beforeLoad.run();
        CompletableFuture<Entry> mine = new CompletableFuture<>();
        CompletableFuture<Entry> running = inFlight.putIfAbsent(key, mine);
        if (running != null) {
            return await(running, key);
        }
        try {
            Entry current;
            synchronized (entries) {
                current = entries.get(key);
            }
            if (current != null && current != previous && !clock.instant().isAfter(current.loadedAt().plus(maxAge))) {
                // Another caller finished loading between our look-up and our claim: use its result.
                mine.complete(current);
                return current;
            }
            Entry fresh = new Entry(loader.load(key), clock.instant());
            synchronized (entries) {
                entries.put(key, fresh);
            }
            mine.complete(fresh);
            return fresh;
        } catch (VerificationException | RuntimeException ex) {
            mine.completeExceptionally(ex);
            if (previous != null) {
                synchronized (entries) {
                    entries.remove(key, previous);
                }
            }
            throw ex;
        } finally {
            if (!mine.isDone()) {
                mine.completeExceptionally(new IllegalStateException("loading " + key + " did not complete"));
            }
            inFlight.remove(key, mine);
        }
    }

    private Entry await(CompletableFuture<Entry> running, String key) throws VerificationException {
        try {
            return running.get(waitLimit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof VerificationException ve) {
                throw ve;
            }
            throw new VerificationException(CERT_FETCH_FAILED, "Loading " + key + " failed: " + e.getCause(),
                    e.getCause());
        } catch (TimeoutException e) {
            throw new VerificationException(CERT_FETCH_FAILED, "Timed out waiting for the download of " + key, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new VerificationException(CERT_FETCH_FAILED, "Interrupted while waiting for " + key, e);
        }
    }
}
