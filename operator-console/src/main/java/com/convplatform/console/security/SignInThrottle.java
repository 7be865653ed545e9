package com.convplatform.console.security;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;

import com.convplatform.console.ConsoleConfig;

/**
 * Failed sign-ins, counted per name and per source address. Once a name has {@code console.sign-in.max-failures}
 * failures (an address {@code console.sign-in.max-failures-per-address}), it is locked: every sign-in for it is refused
 * without looking at the password, for 30 seconds, doubling with each failure after the lock lifts, up to 15 minutes.
 * A successful sign-in clears its name's count; failures are forgotten an hour after the last one.
 */
@ApplicationScoped
public class SignInThrottle {
    static final Duration FIRST_LOCK = Duration.ofSeconds(30);
    static final Duration LONGEST_LOCK = Duration.ofMinutes(15);
    static final Duration FORGET = Duration.ofHours(1);
    /** Counts kept at most; beyond it, those not locked are dropped first. */
    static final int MAX_KEYS = 100_000;

    private record Count(int failures, Instant last, Instant lockedUntil) {
    }

    private final Map<String, Count> counts = new ConcurrentHashMap<>();
    private final ConsoleClock clock;
    private final int maxPerName;
    private final int maxPerAddress;

    public SignInThrottle(ConsoleClock clock, ConsoleConfig config) {
        this.clock = clock;
        this.maxPerName = config.signIn().maxFailures();
        this.maxPerAddress = config.signIn().maxFailuresPerAddress();
    }

    /** How long sign-ins for this name or from this address are still refused; empty when they are not. */
    public Optional<Duration> locked(String name, String address) {
        Instant now = clock.now();
        Duration wait = Duration.ZERO;
        for (String key : new String[]{nameKey(name), addressKey(address)}) {
            Count c = counts.get(key);
            if (c != null && c.lockedUntil() != null && now.isBefore(c.lockedUntil())) {
                Duration left = Duration.between(now, c.lockedUntil());
                wait = left.compareTo(wait) > 0 ? left : wait;
            }
        }
        return wait.isZero() ? Optional.empty() : Optional.of(wait);
    }

    /** Counts a failed sign-in; returns how long sign-ins are now locked for it (empty: not locked). */
    public Optional<Duration> failed(String name, String address) {
        Instant now = clock.now();
        if (counts.size() > MAX_KEYS) {
            counts.values().removeIf(c -> c.lockedUntil() == null || !now.isBefore(c.lockedUntil()));
        }
        count(nameKey(name), maxPerName, now);
        count(addressKey(address), maxPerAddress, now);
        return locked(name, address);
    }

    public void succeeded(String name) {
        counts.remove(nameKey(name));
    }

    private void count(String key, int max, Instant now) {
        counts.compute(key, (k, c) -> {
            int failures = c == null || !now.isBefore(c.last().plus(FORGET)) ? 1 : c.failures() + 1;
            Instant until = null;
            if (failures >= max) {
                long factor = 1L << Math.min(20, failures - max);
                Duration lock = FIRST_LOCK.multipliedBy(factor);
                until = now.plus(lock.compareTo(LONGEST_LOCK) > 0 ? LONGEST_LOCK : lock);
            }
            return new Count(failures, now, until);
        });
    }

    private static String nameKey(String name) {
        return "name:" + (name == null ? "" : name.toLowerCase(Locale.ROOT));
    }

    /** An IPv4 address as it is; an IPv6 address by its /64 (one client holds a whole /64). */
    static String addressKey(String address) {
        if (address == null) {
            return "address:";
        }
        if (address.indexOf(':') >= 0 && address.matches("[0-9A-Fa-f:.%a-zA-Z]+")) {
            try {
                byte[] b = java.net.InetAddress.getByName(address.replaceAll("%.*$", "")).getAddress();
                if (b.length == 16) {
                    return "address:" + java.util.HexFormat.of().formatHex(b, 0, 8) + "::/64";
                }
            } catch (java.net.UnknownHostException e) {
                // not a literal: counted as given
            }
        }
        return "address:" + address;
    }
}
