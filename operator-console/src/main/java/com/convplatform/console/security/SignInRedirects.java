package com.convplatform.console.security;

import jakarta.enterprise.event.Observes;

import io.vertx.ext.web.Router;

/**
 * A refused sign-in (Quarkus' {@code /j_security_check}) is sent back to the form: with the wrong name or password to
 * {@code /login?failed=1} (the form mechanism's error page), and when the name or address is locked to
 * {@code /login?failed=locked&wait=<seconds>}, which says how long to wait.
 */
public class SignInRedirects {
    void install(@Observes Router router) {
        router.post("/j_security_check").order(Integer.MIN_VALUE + 1).handler(ctx -> {
            ctx.addHeadersEndHandler(v -> {
                Object wait = ctx.get(PasswordIdentityProvider.LOCKED);
                if (wait instanceof Long seconds && ctx.response().getStatusCode() == 302) {
                    ctx.response().headers().set("Location", "/login?failed=locked&wait=" + seconds);
                }
            });
            ctx.next();
        });
    }
}
