package com.convplatform.console.web;

import java.net.URI;

import jakarta.enterprise.inject.Instance;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.resteasy.reactive.RestQuery;

import com.convplatform.console.security.LocalUsers;
import com.convplatform.console.security.Operator;
import com.convplatform.console.security.Sessions;

import io.quarkus.oidc.AccessTokenCredential;
import io.quarkus.oidc.OidcSession;
import io.quarkus.qute.Location;
import io.quarkus.qute.Template;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.vertx.http.runtime.security.FormAuthenticationMechanism;
import io.smallrye.mutiny.Uni;

/** The sign-in page (the form posts to Quarkus' {@code /j_security_check}), sign-out, and the OIDC entry point. */
@Path("/")
@Produces(MediaType.TEXT_HTML)
public class SignIn {
    @Location("login.html")
    Template login;

    private final LocalUsers users;
    private final Sessions sessions;
    private final Operator operator;
    private final boolean oidc;
    private final SecurityIdentity identity;
    private final Instance<OidcSession> oidcSession;

    public SignIn(LocalUsers users, Sessions sessions, Operator operator,
            @ConfigProperty(name = "quarkus.oidc.tenant-enabled", defaultValue = "false") boolean oidc,
            SecurityIdentity identity, Instance<OidcSession> oidcSession) {
        this.users = users;
        this.sessions = sessions;
        this.operator = operator;
        this.oidc = oidc;
        this.identity = identity;
        this.oidcSession = oidcSession;
    }

    @GET
    @Path("login")
    public Response login(@RestQuery String failed, @RestQuery String out, @RestQuery String wait) {
        Long seconds = null;
        if ("locked".equals(failed) && wait != null && wait.matches("[0-9]{1,6}")) {
            seconds = Long.parseLong(wait);
        }
        // A locked sign-in: the form again, with how long to wait, answered 429 as the API would.
        return Response.status(seconds != null ? 429 : 200).type(MediaType.TEXT_HTML_TYPE)
                .entity(login.data("failed", failed != null && seconds == null).data("locked", seconds)
                        .data("lockedFor", seconds == null ? null : Formats.span(java.time.Duration.ofSeconds(seconds)))
                        .data("signedOut", out != null).data("expired", false)
                        .data("password", users.users().isPresent()).data("oidc", oidc))
                .build();
    }

    /** Where OpenID Connect sign-in starts (this path needs the code flow) and ends. */
    @GET
    @Path("sso")
    public Response sso() {
        String header = operator.headerValue(); // an alias for a name the services would not take: said here
        operator.audit("sign-in", "oidc", operator.name().equals(header)
                ? "signed in"
                : "signed in; the services record this operator's actions as " + header);
        return Response.seeOther(URI.create("/")).build();
    }

    /**
     * Ends the session the request came with: Quarkus's own form logout replaces the session cookie in Vert.x's cookie
     * jar (where the form mechanism has just put a renewed one when the session was over a minute old, so a cookie set
     * beside it was overridden), and an OpenID Connect session is ended locally (its session cookie removed).
     */
    @POST
    @Path("logout")
    public Uni<Response> logout() {
        operator.audit("sign-out", "session", "signed out");
        // The session ends here, on the server: its cookie, or any copy of it, opens nothing from now on.
        sessions.end(operator.sessionId());
        Response out = Response.seeOther(URI.create("/login?out=1")).build();
        if (identity.getCredential(AccessTokenCredential.class) != null) {
            return oidcSession.get().logout().replaceWith(out);
        }
        FormAuthenticationMechanism.logout(identity);
        return Uni.createFrom().item(out);
    }
}
