package com.convplatform.support;

import java.nio.charset.StandardCharsets;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.quarkus.vertx.http.runtime.RouteConstants;
import io.vertx.core.json.Json;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Refuses a request whose path has a {@code .} or {@code ..} segment, percent-encoded or not, before any route sees
 * it: 400 INVALID_PATH. Vert.x decodes {@code %2e%2e} and resolves the segment, so
 * {@code /platform/management/%2e%2e/%2e%2e/q/metrics} reached the metrics; no path of the platform has such a
 * segment, and a proxy in front that judges paths as sent must see the one the service serves.
 */
@ApplicationScoped
public class DotSegments {
    void install(@Observes Router router) {
        router.route().order(RouteConstants.ROUTE_ORDER_BODY_HANDLER).handler(this::check);
    }

    private void check(RoutingContext ctx) {
        if (hasDotSegment(ctx.request().path())) {
            ctx.response().setStatusCode(400).putHeader(HttpHeaderNames.CONTENT_TYPE, "application/json")
                    .putHeader(RequestIds.HEADER, RequestIds.id())
                    .end(Json.encode(new ApiError("INVALID_PATH", "The path has a '.' or '..' segment (perhaps"
                            + " percent-encoded, as %2e); send the path as the API documents it")));
            return;
        }
        ctx.next();
    }

    /** Whether a raw path (as sent, before decoding) has a segment that decodes to "." or "..". */
    public static boolean hasDotSegment(String rawPath) {
        if (rawPath == null) {
            return false;
        }
        int start = 0;
        while (start <= rawPath.length()) {
            int end = rawPath.indexOf('/', start);
            if (end < 0) {
                end = rawPath.length();
            }
            String segment = rawPath.substring(start, end);
            if (segment.length() <= 9 && !segment.isEmpty()) { // ".." encoded is at most "%2e%2e" (6); room for more
                String decoded = QueryStringDecoder.decodeComponent(segment, StandardCharsets.UTF_8);
                if (decoded.equals(".") || decoded.equals("..")) {
                    return true;
                }
            }
            start = end + 1;
        }
        return false;
    }
}
