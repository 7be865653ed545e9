package com.convplatform.upload.http;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import com.convplatform.upload.config.UploadConfig;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.quarkus.vertx.http.runtime.RouteConstants;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * A request that declares a {@code Content-Length} over {@code upload.max-request-bytes} (11 MiB) is refused with the
 * same JSON 413 as the service's own 10 MB check, before one byte of its body is read, and its connection is closed.
 * A chunked body (no {@code Content-Length}) is counted while the upload endpoint reads it and refused the same way
 * once it passes the bound ({@link BoundedInputStream}).
 */
@ApplicationScoped
public class RequestSizeLimit {
    public static final String MESSAGE = "The request is larger than allowed; files may be at most 10 MB";
    static final String BODY = "{\"error_message\":\"" + MESSAGE + "\",\"error_code\":\"FILE_TOO_LARGE\"}";

    private final long limit;

    public RequestSizeLimit(UploadConfig config) {
        this.limit = config.maxRequestBytes();
    }

    void install(@Observes Router router) {
        router.route().order(RouteConstants.ROUTE_ORDER_UPLOAD_LIMIT - 1).handler(this::declaredLength);
    }

    private void declaredLength(RoutingContext ctx) {
        String declared = ctx.request().getHeader(HttpHeaderNames.CONTENT_LENGTH);
        if (declared == null || !exceeds(declared)) {
            ctx.next();
            return;
        }
        ctx.response().setStatusCode(413).putHeader(HttpHeaderNames.CONTENT_TYPE, "application/json")
                .putHeader(HttpHeaderNames.CONNECTION, "close");
        ctx.response().endHandler(done -> ctx.request().connection().close());
        ctx.response().end(BODY);
    }

    private boolean exceeds(String declared) {
        try {
            return Long.parseLong(declared.trim()) > limit;
        } catch (NumberFormatException e) {
            return false; // Netty refuses a malformed Content-Length before a route sees it
        }
    }
}
