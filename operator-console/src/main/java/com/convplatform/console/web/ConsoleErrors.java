package com.convplatform.console.web;

import java.util.regex.Pattern;

import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

import com.convplatform.support.ApiKeys;

import io.quarkus.qute.Location;
import io.quarkus.qute.Template;

/**
 * An unknown page is answered with a page, ahead of service-support's JSON mappers (which stay for the rest: the
 * console has no bearer keys of its own, hence service-support's empty {@code ApiKeys} they need).
 */
public class ConsoleErrors {
    private static final Logger LOG = Logger.getLogger(ConsoleErrors.class);

    @Location("failed.html")
    Template failed;
    @Location("notfound.html")
    Template notFound;

    /**
     * A path segment holding an encoded {@code / ? # \ .} names nothing of the console: Quarkus REST matches the raw
     * path and hands the decoded segment on, and the pages build form actions and redirects from it, so
     * {@code /accounts/A%2Fendpoint%2Fdisable%3F/replay} would render a "Replay" button that disables an endpoint.
     */
    @ServerRequestFilter(preMatching = true)
    public void noEncodedSeparators(ContainerRequestContext request) {
        if (ENCODED_SEPARATOR.matcher(request.getUriInfo().getRequestUri().getRawPath()).find()) {
            throw new NotFoundException();
        }
    }

    private static final Pattern ENCODED_SEPARATOR = Pattern.compile("%(2[fF]|3[fF]|23|5[cC]|2[eE])");

    @ServerExceptionMapper(priority = Priorities.USER - 100)
    public Response unexpected(Throwable e) {
        LOG.error("Unexpected failure", e);
        return Response.status(500).type(MediaType.TEXT_HTML).entity(failed.instance()).build();
    }

    @ServerExceptionMapper(priority = Priorities.USER - 100)
    public Response notFound(NotFoundException e) {
        return Response.status(404).type(MediaType.TEXT_HTML).entity(notFound.instance()).build();
    }
}
