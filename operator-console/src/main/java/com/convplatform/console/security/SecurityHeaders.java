package com.convplatform.console.security;

import jakarta.enterprise.event.Observes;

import com.convplatform.console.ConsoleConfig;

import io.vertx.core.http.Cookie;
import io.vertx.core.http.impl.ServerCookie;
import io.vertx.ext.web.Router;

/**
 * Every answer: a Content-Security-Policy that allows only the console's own files (no inline script or style, no
 * framing, forms posted only to the console), no caching of operator data, no MIME sniffing, no referrer; and, unless
 * the console is served over plain HTTP ({@code console.secure-cookies=false}), {@code Secure} on every cookie it
 * sets (the session cookie and the CSRF cookie), whether TLS ends here or at a proxy in front.
 */
public class SecurityHeaders {
    public static final String CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self';"
            + " object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

    void install(@Observes Router router, ConsoleConfig config) {
        boolean secure = config.secureCookies();
        router.route().order(Integer.MIN_VALUE).handler(ctx -> {
            ctx.addHeadersEndHandler(v -> {
                var headers = ctx.response().headers();
                headers.set("Content-Security-Policy", CSP);
                headers.set("X-Content-Type-Options", "nosniff");
                headers.set("Referrer-Policy", "no-referrer");
                headers.set("X-Frame-Options", "DENY");
                if (!ctx.request().path().startsWith("/static/")) {
                    headers.set("Cache-Control", "no-store");
                }
                if (secure) {
                    for (Cookie c : ctx.request().cookies()) {
                        if (c instanceof ServerCookie s && s.isChanged()) {
                            c.setSecure(true);
                        }
                    }
                }
            });
            ctx.next();
        });
    }
}
