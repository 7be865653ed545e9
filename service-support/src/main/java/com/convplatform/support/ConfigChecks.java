package com.convplatform.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import io.quarkus.runtime.configuration.ConfigurationException;

/**
 * The relations between a service's settings that must hold for it to work (a lease longer than an attempt, ...),
 * checked at start: every broken one is collected as a sentence naming the settings, their values and what is needed,
 * and {@link #throwIfAny} stops the start with one {@link ConfigurationException} listing them all. Ranges of single
 * settings are Bean Validation constraints on the {@code @ConfigMapping} interfaces.
 */
public final class ConfigChecks {
    private final String service;
    private final List<String> problems = new ArrayList<>();
    private final Set<String> settings = new LinkedHashSet<>();

    private ConfigChecks(String service) {
        this.service = service;
    }

    /** No problem yet; {@code service} starts the message. */
    public static ConfigChecks of(String service) {
        return new ConfigChecks(service);
    }

    /** Records {@code problem} (naming the settings {@code keys}, their values and what they need) unless ok. */
    public ConfigChecks require(boolean ok, String problem, String... keys) {
        if (!ok) {
            problems.add(problem);
            settings.addAll(List.of(keys));
        }
        return this;
    }

    /** A wait, period or time-out: longer than zero. */
    public ConfigChecks positive(String key, Duration value) {
        return require(value.compareTo(Duration.ZERO) > 0, key + " (" + value + ") must be longer than zero", key);
    }

    /** A grace period or a cache's life: zero (none) or longer, never negative. */
    public ConfigChecks notNegative(String key, Duration value) {
        return require(!value.isNegative(), key + " (" + value + ") must not be negative (zero: none)", key);
    }

    /** The sentences recorded so far, in order. */
    public List<String> problems() {
        return List.copyOf(problems);
    }

    /** The settings named by the problems recorded so far. */
    public Set<String> settings() {
        return Set.copyOf(settings);
    }

    /** Stops the start when a relation is broken: one exception whose message lists every problem. */
    public void throwIfAny() {
        if (problems.isEmpty()) {
            return;
        }
        StringBuilder message = new StringBuilder(service).append(" cannot work with this configuration (")
                .append(problems.size()).append(problems.size() == 1 ? " problem" : " problems").append("):");
        problems.forEach(p -> message.append("\n  - ").append(p));
        throw new ConfigurationException(message.toString(), settings);
    }
}
