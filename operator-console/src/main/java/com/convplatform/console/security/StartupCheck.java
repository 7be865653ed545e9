package com.convplatform.console.security;

import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;

import com.convplatform.console.ConsoleConfig;

import io.quarkus.runtime.StartupEvent;

/** The console starts only with a way to sign in: the password, OpenID Connect, or both. */
public class StartupCheck {
    private static final Logger LOG = Logger.getLogger(StartupCheck.class);
    static final int MIN_PASSWORD = 12;

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
        for (var service : java.util.Map.of("management", config.management(), "hook", config.hook(), "upload",
                config.upload()).entrySet()) {
            if (service.getValue().apiKey().filter(k -> !k.isBlank()).isEmpty()) {
                throw new IllegalStateException("console." + service.getKey() + ".api-key is not set: the operator key"
                        + " of " + service.getKey() + "-service, which every page needs");
            }
        }
        LOG.infof("Sign-in: %s%s", password != null ? "the password form" : "",
                oidc ? (password != null ? " and " : "") + "OpenID Connect (/sso)" : "");
    }
}
