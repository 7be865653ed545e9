package com.convplatform.upload.error;

import java.util.Map;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import com.convplatform.support.ApiException;

/** Every refusal is {"error_message", "error_code"} (spec 7 names error_message); no stack trace reaches a client. */
public class ErrorMappers {
    private static final Logger LOG = Logger.getLogger(ErrorMappers.class);

    static Response body(int status, String code, String message) {
        return Response.status(status).type(MediaType.APPLICATION_JSON)
                .entity(Map.of("error_message", message, "error_code", code)).build();
    }

    @ServerExceptionMapper
    public Response upload(ApiException e) {
        return body(e.status(), e.code(), e.getMessage());
    }

    @ServerExceptionMapper
    public Response web(WebApplicationException e) {
        int status = e.getResponse().getStatus();
        if (status == 413) {
            return body(413, "FILE_TOO_LARGE", "The request is larger than allowed; files may be at most 10 MB");
        }
        if (status >= 500) {
            return body(status, "INTERNAL_ERROR", "The upload could not be processed");
        }
        return body(status, status == 415 ? "UNSUPPORTED_MEDIA_TYPE" : status == 404 ? "NOT_FOUND" : "BAD_REQUEST",
                status == 415 ? "Send the upload as multipart/form-data" : e.getMessage());
    }

    @ServerExceptionMapper
    public Response unexpected(RuntimeException e) {
        LOG.error("Unexpected failure", e);
        return body(500, "INTERNAL_ERROR", "The upload could not be processed; nothing was stored");
    }
}
