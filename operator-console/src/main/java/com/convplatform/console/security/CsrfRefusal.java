package com.convplatform.console.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;
import org.jboss.resteasy.reactive.server.core.ResteasyReactiveRequestContext;
import org.jboss.resteasy.reactive.server.spi.ResteasyReactiveContainerRequestContext;

import io.quarkus.qute.Location;
import io.quarkus.qute.Template;

/**
 * Every post (any method but GET, HEAD and OPTIONS) must be a form carrying the session's CSRF token in its
 * {@value Csrf#FIELD} field, compared in constant time with the one the server holds for that session; anything else
 * (no token, a token of another session, another body type) is refused 403 with a page saying nothing changed, and
 * logged. The token lives on the server with the session, so a cookie set by a sibling site cannot supply it.
 */
public class CsrfRefusal {
    private static final Logger AUDIT = Logger.getLogger("console.audit");

    @Location("csrf-refused.html")
    Template page;

    private final Operator operator;

    public CsrfRefusal(Operator operator) {
        this.operator = operator;
    }

    @ServerRequestFilter(readBody = true)
    public Response check(ResteasyReactiveContainerRequestContext request) {
        String method = request.getMethod();
        if (HttpMethod.GET.equals(method) || HttpMethod.HEAD.equals(method) || HttpMethod.OPTIONS.equals(method)) {
            return null;
        }
        String expected = operator.csrfToken();
        MediaType type = request.getMediaType();
        Object given = type != null && MediaType.APPLICATION_FORM_URLENCODED_TYPE.isCompatible(type)
                ? ((ResteasyReactiveRequestContext) request.getServerRequestContext()).getFormParameter(Csrf.FIELD,
                        true, false)
                : null;
        if (expected != null && given instanceof String token && MessageDigest.isEqual(
                expected.getBytes(StandardCharsets.UTF_8), token.getBytes(StandardCharsets.UTF_8))) {
            return null;
        }
        // The path is the decoded one: an encoded newline in it must not start a line of its own.
        AUDIT.infof("operator=%s action=%s %s outcome=refused: no valid CSRF token", Operator.oneLine(operator.name()),
                Operator.oneLine(method), Operator.oneLine(request.getUriInfo().getPath()));
        return Response.status(403).type(MediaType.TEXT_HTML_TYPE).entity(page.render()).build();
    }
}
