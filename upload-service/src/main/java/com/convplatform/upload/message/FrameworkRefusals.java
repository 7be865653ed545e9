package com.convplatform.upload.message;

import jakarta.ws.rs.NotAllowedException;
import jakarta.ws.rs.NotSupportedException;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;

import org.jboss.resteasy.reactive.server.ServerExceptionMapper;
import org.jboss.resteasy.reactive.server.spi.ServerRequestContext;

import com.convplatform.support.ApiException;
import com.convplatform.support.ErrorMappers;

import io.quarkus.security.ForbiddenException;

/** Quarkus REST's 405 and 415, and the security layer's 403, at the upload endpoint in its own words; elsewhere {@link ErrorMappers}' answers. */
public class FrameworkRefusals {
    private final ErrorMappers shared;
    private final UploadService uploads;

    public FrameworkRefusals(ErrorMappers shared, UploadService uploads) {
        this.shared = shared;
        this.uploads = uploads;
    }

    @ServerExceptionMapper
    public Response notAllowed(NotAllowedException e, UriInfo uri) {
        return upload(uri)
                ? Response.fromResponse(ErrorMappers.error(405, "METHOD_NOT_ALLOWED", "Send the upload with POST"))
                        .header(HttpHeaders.ALLOW, "POST").build()
                : shared.web(e, uri);
    }

    /**
     * Another service key (the operator's) at the upload: spec 7's 401 for authorization that is not the caller's
     * token, not the 403 of a valid key for another API. Ahead of {@link ErrorMappers}' mapper of the same type.
     */
    @ServerExceptionMapper(priority = Priorities.USER - 1)
    public Response forbidden(ForbiddenException e, UriInfo uri, ResourceInfo resource,
            ServerRequestContext request) {
        return upload(uri)
                ? shared.api(uploads.refused(new ApiException(401, "INVALID_AUTHORIZATION",
                        "Invalid authorization details: send the access token issued for your client")))
                : shared.forbidden(e, resource, request);
    }

    @ServerExceptionMapper
    public Response notSupported(NotSupportedException e, UriInfo uri) {
        return upload(uri)
                ? shared.api(uploads.refused(
                        new ApiException(415, "UNSUPPORTED_MEDIA_TYPE", "Send the upload as multipart/form-data")))
                : shared.web(e, uri);
    }

    private static boolean upload(UriInfo uri) {
        return uri.getPath().startsWith(UploadResource.PATH);
    }
}
