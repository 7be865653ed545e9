package com.convplatform.management.error;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import com.convplatform.support.ApiException;

/** Maps every exception to the JSON error body; no stack trace ever reaches a client. */
public class ErrorMappers {
    private static final Logger LOG = Logger.getLogger(ErrorMappers.class);

    @ServerExceptionMapper
    public Response api(ApiException e) {
        return Response.status(e.status()).type(MediaType.APPLICATION_JSON)
                .entity(new ApiError(e.code(), e.getMessage())).build();
    }

    @ServerExceptionMapper
    public Response web(WebApplicationException e) {
        int status = e.getResponse().getStatus();
        String code = switch (status) {
            case 404 -> "NOT_FOUND";
            case 405 -> "METHOD_NOT_ALLOWED";
            case 406 -> "NOT_ACCEPTABLE";
            case 413 -> "BODY_TOO_LARGE";
            case 415 -> "UNSUPPORTED_MEDIA_TYPE";
            default -> status >= 500 ? "INTERNAL_ERROR" : "BAD_REQUEST";
        };
        String message = status >= 500 ? "The request could not be processed" : e.getMessage();
        return Response.status(status).type(MediaType.APPLICATION_JSON).entity(new ApiError(code, message)).build();
    }

    @ServerExceptionMapper
    public Response unexpected(RuntimeException e) {
        LOG.error("Unexpected failure", e);
        return Response.status(500).type(MediaType.APPLICATION_JSON)
                .entity(new ApiError("INTERNAL_ERROR", "The request could not be processed; it changed nothing"))
                .build();
    }
}
