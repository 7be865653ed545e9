package com.convplatform.console.security;

import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;

import com.convplatform.console.ConsoleConfig;

/**
 * The sessions of operators signed in with the users file, held here on the server: the encrypted session cookie
 * carries only a random session id. A session ends at sign-out (a copy of its cookie opens nothing afterwards), after
 * {@code console.session.idle-timeout} without a request, and {@code console.session.lifetime} after sign-in whatever
 * happens. Each session has its own CSRF token. Held in memory: a restart ends every session, and replicas do not
 * share them (route an operator to one replica, or use OpenID Connect).
 */
@ApplicationScoped
public class Sessions {
    /** Per instance, made at run time: a static one would be built into a native image's heap, which GraalVM refuses. */
    private final SecureRandom random = new SecureRandom();

    public record Session(String id, String operator, Instant started, Instant lastSeen, String csrfToken) {
    }

    private final Map<String, Session> open = new ConcurrentHashMap<>();
    private final ConsoleClock clock;
    private final Duration idle;
    private final Duration lifetime;

    public Sessions(ConsoleClock clock, ConsoleConfig config) {
        this.clock = clock;
        this.idle = config.session().idleTimeout();
        this.lifetime = config.session().lifetime();
    }

    /** A new session for {@code operator}; returns its id. */
    public Session open(String operator) {
        Instant now = clock.now();
        open.values().removeIf(s -> !alive(s, now));
        Session s = new Session(random(), operator, now, now, random());
        open.put(s.id(), s);
        return s;
    }

    /** The session {@code id} when it is still open (and marks it used now); empty when it ended or never was. */
    public Optional<Session> use(String id) {
        if (id == null) {
            return Optional.empty();
        }
        Instant now = clock.now();
        Session s = open.computeIfPresent(id, (k, v) -> alive(v, now)
                ? new Session(v.id(), v.operator(), v.started(), now, v.csrfToken())
                : null);
        return Optional.ofNullable(s);
    }

    /** The open session {@code id}, without marking it used. */
    public Optional<Session> get(String id) {
        Session s = id == null ? null : open.get(id);
        return s != null && alive(s, clock.now()) ? Optional.of(s) : Optional.empty();
    }

    public void end(String id) {
        if (id != null) {
            open.remove(id);
        }
    }

    private boolean alive(Session s, Instant now) {
        return now.isBefore(s.lastSeen().plus(idle)) && now.isBefore(s.started().plus(lifetime));
    }

    private String random() {
        byte[] b = new byte[32];
        random.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }
}
