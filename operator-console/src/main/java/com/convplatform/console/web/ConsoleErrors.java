package com.convplatform.console.web;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import com.convplatform.support.ApiKeys;

import io.quarkus.qute.Location;
import io.quarkus.qute.Template;

/**
 * An unknown page is answered with a page, ahead of service-support's JSON mappers (which stay for the rest: the
 * console has no bearer keys of its own, hence the empty {@link ApiKeys} they need).
 */
public class ConsoleErrors {
    private static final Logger LOG = Logger.getLogger(ConsoleErrors.class);

    @Location("failed.html")
    Template failed;
    @Location("notfound.html")
    Template notFound;

    @Produces
    @Singleton
    static ApiKeys noKeys() {
        return ApiKeys.of();
    }

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
