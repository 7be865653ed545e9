package com.convplatform.console.security;

import jakarta.enterprise.event.Observes;

import com.convplatform.console.ConsoleConfig;

import io.quarkus.qute.Location;
import io.quarkus.qute.Template;
import io.quarkus.security.ForbiddenException;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.vertx.http.runtime.security.QuarkusHttpUser;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Someone signed in whom the HTTP permissions refuse (an identity provider's user without the role {@code operator},
 * after mapping) gets a page that says who they are signed in as, which role is missing and where it is given, and a
 * sign-out button ({@code /logout} is open to any signed-in user), not the framework's empty 403. Each refusal is
 * on the audit log. The framework's way for a permission's refusal: a route failure handler on its
 * {@link ForbiddenException}.
 */
public class NotAnOperator {
    @Location("not-an-operator.html")
    Template page;

    private final Sessions sessions;
    private final ConsoleConfig config;

    public NotAnOperator(Sessions sessions, ConsoleConfig config) {
        this.sessions = sessions;
        this.config = config;
    }

    void install(@Observes Router router) {
        router.route().order(Integer.MIN_VALUE + 2).failureHandler(this::refused);
    }

    private void refused(RoutingContext ctx) {
        SecurityIdentity identity = ctx.user() instanceof QuarkusHttpUser user ? user.getSecurityIdentity() : null;
        if (!(ctx.failure() instanceof ForbiddenException) || identity == null || identity.isAnonymous()
                || ctx.response().ended()) {
            ctx.next();
            return;
        }
        Operator signedIn = new Operator(identity, sessions, config);
        signedIn.audit(ctx.request().method() + " " + ctx.request().path(), "console",
                "refused: signed in without the role " + Operator.ROLE);
        String token = signedIn.csrfToken();
        String html = page.data("name", signedIn.name()).data("role", Operator.ROLE)
                .data("csrfField", Csrf.FIELD).data("csrfToken", token == null ? "" : token).render();
        ctx.response().setStatusCode(403).putHeader("Content-Type", "text/html; charset=UTF-8").end(html);
    }
}
