package com.convplatform.console.security;

import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.core.MediaType;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;

import io.quarkus.qute.Location;
import io.quarkus.qute.Template;

/**
 * A form post that the CSRF filter refused (no token, or not the one in the session's CSRF cookie) is answered 403
 * with a page saying what to do, rather than the filter's empty 400: the request was understood and is forbidden.
 * The filter marks every post it accepts ({@value #VERIFIED}), so the console's own 400s are left alone.
 */
public class CsrfRefusal {
    private static final Logger AUDIT = Logger.getLogger("console.audit");
    static final String VERIFIED = "csrf_token_verified";

    @Location("csrf-refused.html")
    Template page;

    @ServerResponseFilter
    public void refuse(ContainerRequestContext request, ContainerResponseContext response) {
        String method = request.getMethod();
        if (response.getStatus() == 400 && !response.hasEntity() && !HttpMethod.GET.equals(method)
                && !HttpMethod.HEAD.equals(method) && !"true".equals(String.valueOf(request.getProperty(VERIFIED)))) {
            // The path is the decoded one: an encoded newline in it must not start a line of its own.
            AUDIT.infof("operator=%s action=%s %s outcome=refused: no valid CSRF token",
                    Operator.oneLine(request.getSecurityContext().getUserPrincipal() == null
                            ? "anonymous"
                            : request.getSecurityContext().getUserPrincipal().getName()),
                    Operator.oneLine(method), Operator.oneLine(request.getUriInfo().getPath()));
            response.setStatus(403);
            response.setEntity(page.render(), null, MediaType.TEXT_HTML_TYPE);
        }
    }
}
