package com.convplatform.console;

import java.time.Duration;
import java.util.Optional;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** The console's own settings; the services' addresses and keys are under {@code console.management.*} etc. */
@ConfigMapping(prefix = "console")
public interface ConsoleConfig {
    /**
     * The shared password of before: no longer taken. Read only so that a console still given one refuses to start,
     * naming {@code console.users-file}.
     */
    Optional<String> password();

    /**
     * The local operators, one {@code name:pbkdf2-sha256$iterations$salt$hash} a line ({@code Users}). Unset: the form
     * refuses every sign-in, and the console starts only when OpenID Connect is enabled.
     */
    Optional<String> usersFile();

    /** How long a session lasts. */
    SessionLimits session();

    interface SessionLimits {
        /** A session ends after this long without a request. */
        @WithDefault("PT30M")
        Duration idleTimeout();

        /** A session ends this long after sign-in, however busy. */
        @WithDefault("PT8H")
        Duration lifetime();
    }

    /** The sign-in throttle. */
    SignInLimits signIn();

    interface SignInLimits {
        /** Failed sign-ins for one name before it is locked (30 s, doubling with each further failure, 15 min at most). */
        @WithDefault("5")
        int maxFailures();

        /** Failed sign-ins from one address (an IPv6 /64) before it is locked the same way. */
        @WithDefault("20")
        int maxFailuresPerAddress();
    }

    /**
     * Encrypts the session cookies ({@code quarkus.http.auth.session.encryption-key}); required, at least 32
     * characters, the same on every replica.
     */
    Optional<String> sessionKey();

    /** No longer used (each session holds its own CSRF token on the server); accepted and ignored. */
    Optional<String> csrfKey();

    /** Whether the session and CSRF cookies carry {@code Secure}: true unless the console is served over plain HTTP. */
    @WithDefault("true")
    boolean secureCookies();

    /** management-service's operator API. */
    Service management();

    /** hook-service's operator API. */
    Service hook();

    /** upload-service's operator API. */
    Service upload();

    interface Service {
        /**
         * Its base URL: absolute, {@code http} or {@code https}, with a host, without a query, a fragment or a trailing
         * slash (the clients' paths are appended to it); checked at start.
         */
        String url();

        /** Its operator key ({@code *.admin.api-key} of that service); required. */
        Optional<String> apiKey();
    }

    /** Rows per page of every list. */
    @WithDefault("50")
    int pageSize();
}
