package com.convplatform.console;

import java.util.Optional;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** The console's own settings; the services' addresses and keys are under {@code console.management.*} etc. */
@ConfigMapping(prefix = "console")
public interface ConsoleConfig {
    /**
     * The operators' shared password for the sign-in form. Unset: the form refuses every sign-in, and the console
     * starts only when OpenID Connect is enabled ({@code quarkus.oidc.tenant-enabled=true}).
     */
    Optional<String> password();

    /**
     * Encrypts the session cookies ({@code quarkus.http.auth.session.encryption-key}); required, at least 32
     * characters, the same on every replica.
     */
    Optional<String> sessionKey();

    /**
     * Signs the CSRF tokens ({@code quarkus.rest-csrf.token-signature-key}); optional (unset or empty: unsigned), at
     * least 32 characters when set, the same on every replica.
     */
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
