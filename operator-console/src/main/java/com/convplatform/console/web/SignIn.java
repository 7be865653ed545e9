package com.convplatform.console.web;

import java.net.URI;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.NewCookie;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.resteasy.reactive.RestQuery;

import com.convplatform.console.ConsoleConfig;
import com.convplatform.console.security.Operator;

import io.quarkus.qute.Location;
import io.quarkus.qute.Template;
import io.quarkus.qute.TemplateInstance;

/** The sign-in page (the form posts to Quarkus' {@code /j_security_check}), sign-out, and the OIDC entry point. */
@Path("/")
@Produces(MediaType.TEXT_HTML)
public class SignIn {
    @Location("login.html")
    Template login;

    private final ConsoleConfig config;
    private final Operator operator;
    private final boolean oidc;
    private final String cookieName;

    public SignIn(ConsoleConfig config, Operator operator,
            @ConfigProperty(name = "quarkus.oidc.tenant-enabled", defaultValue = "false") boolean oidc,
            @ConfigProperty(name = "quarkus.http.auth.form.cookie-name", defaultValue = "quarkus-credential") String cookieName) {
        this.config = config;
        this.operator = operator;
        this.oidc = oidc;
        this.cookieName = cookieName;
    }

    @GET
    @Path("login")
    public TemplateInstance login(@RestQuery String failed, @RestQuery String out) {
        return login.data("failed", failed != null).data("signedOut", out != null)
                .data("password", config.password().filter(p -> !p.isBlank()).isPresent()).data("oidc", oidc);
    }

    /** Where OpenID Connect sign-in starts (this path needs the code flow) and ends. */
    @GET
    @Path("sso")
    public Response sso() {
        operator.audit("sign-in", "oidc", "signed in");
        return Response.seeOther(URI.create("/")).build();
    }

    @POST
    @Path("logout")
    public Response logout() {
        operator.audit("sign-out", "session", "signed out");
        return Response.seeOther(URI.create("/login?out=1"))
                .cookie(new NewCookie.Builder(cookieName).value("").path("/").maxAge(0).httpOnly(true)
                        .sameSite(NewCookie.SameSite.STRICT).build())
                .build();
    }
}
