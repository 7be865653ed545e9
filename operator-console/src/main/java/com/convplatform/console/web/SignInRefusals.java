package com.convplatform.console.web;

import java.net.URI;

import jakarta.ws.rs.core.Response;

import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.UnauthorizedException;

/**
 * A person at a browser is never shown the services' JSON refusal: a request whose session could not be read (ended,
 * expired, forged) is sent to the sign-in form, like any request without one. Takes precedence over service-support's
 * API mappers, which answer the services' clients in JSON.
 */
public class SignInRefusals {
    @ServerExceptionMapper(priority = 1)
    public Response notSignedIn(AuthenticationFailedException e) {
        return Response.seeOther(URI.create("/login")).build();
    }

    @ServerExceptionMapper(priority = 1)
    public Response unauthorized(UnauthorizedException e) {
        return Response.seeOther(URI.create("/login")).build();
    }
}
