package com.convplatform.console.web;

import java.net.URI;

import jakarta.ws.rs.core.Response;

import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import com.convplatform.console.security.PasswordIdentityProvider;

import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.UnauthorizedException;
import io.vertx.ext.web.RoutingContext;

/**
 * A person at a browser is never shown the services' JSON refusal (service-support's mappers, which also see the
 * failures of proactive authentication): a refused sign-in goes back to the form saying why ({@code /login?failed=1},
 * or {@code failed=locked&wait=<seconds>} when the name or address is locked), and a request whose session cookie
 * opens nothing (ended, expired, forged) goes to the form like a request without one. 302, as the form mechanism's own
 * redirects.
 */
public class SignInRefusals {
    @ServerExceptionMapper(priority = 1)
    public Response notSignedIn(AuthenticationFailedException e, RoutingContext http) {
        return toTheForm(http);
    }

    @ServerExceptionMapper(priority = 1)
    public Response unauthorized(UnauthorizedException e, RoutingContext http) {
        return toTheForm(http);
    }

    static Response toTheForm(RoutingContext http) {
        String location = "/login";
        if (http != null && "/j_security_check".equals(http.normalizedPath())) {
            Object wait = http.get(PasswordIdentityProvider.LOCKED);
            location = wait instanceof Long seconds ? "/login?failed=locked&wait=" + seconds : "/login?failed=1";
        }
        return Response.status(302).location(URI.create(location)).build();
    }
}
