package com.convplatform.upload.message;

import java.io.IOException;
import java.util.Locale;

import jakarta.ws.rs.NotAllowedException;
import jakarta.ws.rs.NotSupportedException;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;

import org.jboss.resteasy.reactive.server.ServerExceptionMapper;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;
import org.jboss.resteasy.reactive.server.core.multipart.MultipartParser;
import org.jboss.resteasy.reactive.server.spi.ResteasyReactiveContainerRequestContext;

import com.convplatform.support.ApiException;
import com.convplatform.support.ErrorMappers;
import com.convplatform.upload.config.UploadConfig;

import io.vertx.core.http.HttpServerRequest;

/**
 * Quarkus REST's refusals at the upload endpoint, with the codes this service gave them before; everywhere else they
 * are service-support's {@link ErrorMappers}' answers. The form reader's failures come here without their resource
 * (Quarkus REST resumes the request with them), so these are global mappers that look at the path:
 * <ul>
 * <li>a wrong method: 405 with {@code Allow: POST};</li>
 * <li>a body that is not multipart/form-data: 415 saying so;</li>
 * <li>the reader's bare 413: the body passed {@code quarkus.http.limits.max-body-size} (413 FILE_TOO_LARGE), or a
 * text field {@code quarkus.http.limits.max-form-attribute-size} (400 FIELD_TOO_LONG);</li>
 * <li>a part whose headers are not well-formed, or a body that ended before the closing boundary: 400
 * INVALID_MULTIPART; a body that could not be read to its end (the client stopped sending for
 * {@code quarkus.http.read-timeout}, or went away): 400 INCOMPLETE_BODY;</li>
 * <li>more than {@code quarkus.http.limits.max-parameters} (32) parts, refused with a plain RuntimeException: 400
 * INVALID_MULTIPART.</li>
 * </ul>
 * A refusal sent before the body was read to its end closes the connection. And two cases the form reader does not
 * handle: a multipart Content-Type without a boundary (it would not read the body at all: 400 INVALID_MULTIPART), and
 * a connection that closes while the form arrives (the request would wait forever, its file part never deleted: it
 * ends as INCOMPLETE_BODY, which deletes it).
 */
public class FrameworkRefusals {
    private static final String INCOMPLETE = "The request body could not be read to its end";
    private final ErrorMappers shared;
    private final HttpServerRequest request;
    private final UploadConfig config;
    private final UploadService uploads;

    public FrameworkRefusals(ErrorMappers shared, HttpServerRequest request, UploadConfig config,
            UploadService uploads) {
        this.shared = shared;
        this.request = request;
        this.config = config;
        this.uploads = uploads;
    }

    @ServerRequestFilter
    public void whileTheFormArrives(ResteasyReactiveContainerRequestContext context, HttpServerRequest http) {
        if (!http.path().startsWith(UploadResource.PATH)) {
            return;
        }
        String type = String.valueOf(http.getHeader(HttpHeaders.CONTENT_TYPE)).toLowerCase(Locale.ROOT);
        if (type.startsWith("multipart/form-data") && !type.contains("boundary=")) {
            context.abortWith(refused(http, 400, "INVALID_MULTIPART",
                    "The Content-Type needs a valid multipart boundary parameter"));
            return;
        }
        if (http.response().closed()) { // gone already, before the form reader started
            context.abortWith(refused(http, 400, "INCOMPLETE_BODY", INCOMPLETE));
            return;
        }
        http.exceptionHandler(failure -> {
            if (!http.isEnded()) {
                context.resume(new IOException("The connection closed before the body's end: " + failure));
            }
        });
    }

    @ServerExceptionMapper
    public Response notAllowed(NotAllowedException e, UriInfo uri) {
        return upload(uri)
                ? Response.fromResponse(ErrorMappers.error(405, "METHOD_NOT_ALLOWED", "Send the upload with POST"))
                        .header(HttpHeaders.ALLOW, "POST").build()
                : shared.web(e, uri);
    }

    @ServerExceptionMapper
    public Response notSupported(NotSupportedException e, UriInfo uri) {
        return upload(uri)
                ? refused(415, "UNSUPPORTED_MEDIA_TYPE", "Send the upload as multipart/form-data")
                : shared.web(e, uri);
    }

    @ServerExceptionMapper(priority = Priorities.USER - 1)
    public Response tooLarge(WebApplicationException e, UriInfo uri) {
        if (e.getResponse().getStatus() != 413 || !upload(uri)) {
            return shared.web(e, uri);
        }
        return request.bytesRead() >= config.maxRequestBytes()
                ? refused(413, "FILE_TOO_LARGE", UploadResource.TOO_LARGE)
                : refused(400, "FIELD_TOO_LONG", "A text field of the form is over 16 KiB; message_body may be at"
                        + " most " + config.maxMessageBody() + " characters");
    }

    @ServerExceptionMapper
    public Response malformed(MultipartParser.MalformedMessageException e) {
        return refused(400, "INVALID_MULTIPART", "The multipart body is malformed: a part's headers are not valid");
    }

    @ServerExceptionMapper
    public Response unreadable(IOException e, UriInfo uri) {
        if (!upload(uri)) {
            return shared.unexpected(e);
        }
        return request.isEnded()
                ? refused(400, "INVALID_MULTIPART", "The multipart body is malformed: no closing boundary")
                : refused(400, "INCOMPLETE_BODY", INCOMPLETE);
    }

    @ServerExceptionMapper
    public Response unmapped(RuntimeException e) {
        return e.getClass() == RuntimeException.class && String.valueOf(e.getMessage()).startsWith("Param limit of")
                ? refused(400, "INVALID_MULTIPART", "The form has more than 32 parts")
                : shared.unexpected(e);
    }

    private static boolean upload(UriInfo uri) {
        return uri.getPath().startsWith(UploadResource.PATH);
    }

    private Response refused(int status, String code, String message) {
        return refused(request, status, code, message);
    }

    private Response refused(HttpServerRequest http, int status, String code, String message) {
        uploads.refused(new ApiException(status, code, message));
        Response r = ErrorMappers.error(status, code, message);
        if (http.isEnded()) {
            return r;
        }
        // what still arrives is dropped (not parsed again), and the connection is closed once the answer is out
        http.handler(dropped -> {
        }).endHandler(null);
        http.response().bodyEndHandler(sent -> http.connection().close());
        return Response.fromResponse(r).header("Connection", "close").build();
    }
}
