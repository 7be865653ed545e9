package com.convplatform.console.security;

import java.util.List;
import java.util.Map;

import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;

import com.convplatform.console.ConsoleConfig;
import com.convplatform.support.ConfigChecks;

import io.quarkus.runtime.StartupEvent;

/**
 * The console starts only with a way to sign in (the password, OpenID Connect, or both) and a session key of its own:
 * without one Quarkus makes a key per start and writes it to the log, and whoever reads the log can forge a session.
 * Settings that would fail only at the first page (a short CSRF key, a service URL that is not one) stop it too.
 */
public class StartupCheck {
    private static final Logger LOG = Logger.getLogger(StartupCheck.class);
    static final int MIN_PASSWORD = 12;
    static final int MIN_SESSION_KEY = 32;
    /** quarkus-rest-csrf refuses a shorter key, but only when it signs a token: on every page. */
    static final int MIN_CSRF_KEY = 32;
    /**
     * The largest page: a list asks the services for one row more than it shows (to know whether there is a next page),
     * and they answer at most 1000 at once ({@code limit} 1 to 1000, refused above).
     */
    static final int MAX_PAGE = 999;

    void check(@Observes StartupEvent event, ConsoleConfig config) {
        boolean oidc = ConfigProvider.getConfig().getOptionalValue("quarkus.oidc.tenant-enabled", Boolean.class)
                .orElse(false);
        String password = config.password().filter(p -> !p.isBlank()).orElse(null);
        if (password == null && !oidc) {
            throw new IllegalStateException("No way to sign in: set console.password (CONSOLE_PASSWORD), or enable"
                    + " OpenID Connect (quarkus.oidc.tenant-enabled=true with quarkus.oidc.auth-server-url)");
        }
        if (password != null && password.length() < MIN_PASSWORD) {
            throw new IllegalStateException("console.password is shorter than " + MIN_PASSWORD + " characters");
        }
        String sessionKey = config.sessionKey().filter(k -> !k.isBlank()).orElse("");
        if (sessionKey.length() < MIN_SESSION_KEY) {
            throw new IllegalStateException("console.session-key (CONSOLE_SESSION_KEY) is "
                    + (sessionKey.isEmpty() ? "not set" : "shorter than " + MIN_SESSION_KEY + " characters")
                    + ": it encrypts the session cookies, so set " + MIN_SESSION_KEY + " or more random characters,"
                    + " the same on every replica (openssl rand -base64 32)");
        }
        // Empty is unset (unsigned tokens); blank is not: the extension would get the spaces as its key.
        String csrfKey = config.csrfKey().filter(k -> !k.isEmpty()).orElse(null);
        if (csrfKey != null && csrfKey.length() < MIN_CSRF_KEY) {
            throw new IllegalStateException("console.csrf-key (CONSOLE_CSRF_KEY) is shorter than " + MIN_CSRF_KEY
                    + " characters: it signs the CSRF tokens, and a shorter key fails every page; set " + MIN_CSRF_KEY
                    + " or more random characters, the same on every replica (openssl rand -base64 32), or leave it"
                    + " unset");
        }
        if (config.pageSize() < 1 || config.pageSize() > MAX_PAGE) {
            throw new IllegalStateException(
                    "console.page-size is " + config.pageSize() + "; it must be 1 to " + MAX_PAGE
                            + " (a page asks the services for one row more, and they answer at most 1000 at once)");
        }
        List<Map.Entry<String, ConsoleConfig.Service>> services = List.of(Map.entry("management", config.management()),
                Map.entry("hook", config.hook()), Map.entry("upload", config.upload()));
        // The same rule as the services' base URLs; reported in this check's style, every bad URL in one message.
        ConfigChecks urls = ConfigChecks.of("operator-console");
        services.forEach(service -> urls.httpUrl("console." + service.getKey() + ".url", service.getValue().url()));
        if (!urls.problems().isEmpty()) {
            throw new IllegalStateException(String.join("; ", urls.problems()));
        }
        for (var service : services) {
            if (service.getValue().apiKey().filter(k -> !k.isBlank()).isEmpty()) {
                throw new IllegalStateException("console." + service.getKey() + ".api-key is not set: the operator key"
                        + " of " + service.getKey() + "-service, which every page needs");
            }
        }
        LOG.infof("Sign-in: %s%s", password != null ? "the password form" : "",
                oidc ? (password != null ? " and " : "") + "OpenID Connect (/sso)" : "");
    }
}
