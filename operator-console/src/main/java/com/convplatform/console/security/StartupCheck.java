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
    static final int MIN_SESSION_KEY = 32;
    /**
     * The largest page: a list asks the services for one row more than it shows (to know whether there is a next page),
     * and they answer at most 1000 at once ({@code limit} 1 to 1000, refused above).
     */
    static final int MAX_PAGE = 999;

    void check(@Observes StartupEvent event, ConsoleConfig config, LocalUsers users) {
        check(config, users);
    }

    void check(ConsoleConfig config, LocalUsers users) {
        boolean oidc = ConfigProvider.getConfig().getOptionalValue("quarkus.oidc.tenant-enabled", Boolean.class)
                .orElse(false);
        if (config.password().isPresent()) {
            throw new IllegalStateException("console.password (CONSOLE_PASSWORD) is no longer taken: operators sign in"
                    + " as themselves, each with their own password, listed in console.users-file (CONSOLE_USERS_FILE),"
                    + " or with OpenID Connect; remove console.password (see the console's README for the users file)");
        }
        if (users.problem() != null) {
            throw new IllegalStateException(users.problem());
        }
        boolean local = users.users().isPresent();
        if (!local && !oidc) {
            throw new IllegalStateException("No way to sign in: set console.users-file (CONSOLE_USERS_FILE) to the"
                    + " operators' users file, or enable OpenID Connect (quarkus.oidc.tenant-enabled=true with"
                    + " quarkus.oidc.auth-server-url)");
        }
        if (config.session().idleTimeout().isNegative() || config.session().idleTimeout().isZero()
                || config.session().lifetime().compareTo(config.session().idleTimeout()) < 0) {
            throw new IllegalStateException("console.session.idle-timeout must be positive and no longer than"
                    + " console.session.lifetime");
        }
        if (config.signIn().maxFailures() < 1 || config.signIn().maxFailuresPerAddress() < 1) {
            throw new IllegalStateException("console.sign-in.max-failures and max-failures-per-address must be 1 or"
                    + " more");
        }
        String sessionKey = config.sessionKey().filter(k -> !k.isBlank()).orElse("");
        if (sessionKey.length() < MIN_SESSION_KEY) {
            throw new IllegalStateException("console.session-key (CONSOLE_SESSION_KEY) is "
                    + (sessionKey.isEmpty() ? "not set" : "shorter than " + MIN_SESSION_KEY + " characters")
                    + ": it encrypts the session cookies, so set " + MIN_SESSION_KEY + " or more random characters,"
                    + " the same on every replica (openssl rand -base64 32)");
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
        LOG.infof("Sign-in: %s%s", local ? "the users file (" + users.users().get().size() + " operators)" : "",
                oidc ? (local ? " and " : "") + "OpenID Connect (/sso)" : "");
    }
}
