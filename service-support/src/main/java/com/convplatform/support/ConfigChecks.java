package com.convplatform.support;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
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

    /**
     * A base URL another service or a client is sent to: absolute, {@code http} or {@code https}, with a host and
     * without a query, a fragment or a trailing slash (paths are appended to it). A Kubernetes service name without
     * its scheme ({@code hook-service:8082}) parses as a URI of scheme "hook-service" and would fail only at the
     * first call.
     */
    public ConfigChecks httpUrl(String key, String value) {
        String problem = null;
        try {
            URI uri = new URI(value);
            if (uri.getScheme() == null || !uri.getScheme().equalsIgnoreCase("http")
                    && !uri.getScheme().equalsIgnoreCase("https") || uri.getHost() == null) {
                problem = "is not an absolute http or https URL with a host (for example http://hook-service:8082)";
            } else if (uri.getRawQuery() != null || uri.getRawFragment() != null || value.endsWith("/")) {
                problem = "must not end with a slash, a query or a fragment: paths are appended to it";
            }
        } catch (URISyntaxException e) {
            problem = "is not a URL: " + e.getReason();
        }
        return require(problem == null, key + " (" + value + ") " + problem, key);
    }

    /** A key this service sends to another one: the other side refuses every call without it. */
    public ConfigChecks present(String key, Optional<String> value, String consequence) {
        return require(value.filter(v -> !v.isBlank()).isPresent(), key + " is not set: " + consequence, key);
    }

    /**
     * Two keys that open different APIs must differ: the same value would open both to whoever holds it (the caller
     * given the internal key would get the operator API, and its every call would be audited as an operator's).
     */
    public ConfigChecks differ(String key, Optional<String> value, String otherKey, Optional<String> other) {
        boolean same = value.filter(v -> !v.isBlank()).isPresent() && value.equals(other);
        return require(!same, key + " and " + otherKey + " are the same value: each opens a different API, so the"
                + " service that holds " + otherKey + " would also hold " + key + "'s; give each its own", key,
                otherKey);
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
