package com.convplatform.support;

import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.quarkus.runtime.configuration.MemorySize;
import io.quarkus.vertx.http.runtime.RouteConstants;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Refuses a body whose declared length is over {@code quarkus.http.limits.max-body-size} with the {@link ApiError}
 * body, just before Quarkus's own check (which answers the same 413 with an empty body). The connection is closed
 * after the answer, as Quarkus does, since the body is not read. {@code platform.http.body-too-large-code} names the
 * code (upload-service: {@code FILE_TOO_LARGE}).
 */
@ApplicationScoped
public class BodyLimit {
    private final Optional<MemorySize> limit;
    private final byte[] refusal;

    public BodyLimit(@ConfigProperty(name = "quarkus.http.limits.max-body-size") Optional<MemorySize> limit,
            @ConfigProperty(name = "platform.http.body-too-large-code", defaultValue = "BODY_TOO_LARGE") String code,
            ObjectMapper json) throws JsonProcessingException {
        this.limit = limit;
        this.refusal = json.writeValueAsBytes(new ApiError(code, "The body is larger than the "
                + limit.map(MemorySize::asLongValue).orElse(0L) + " bytes this service takes"));
    }

    void install(@Observes Router router) {
        limit.ifPresent(max -> router.route().order(RouteConstants.ROUTE_ORDER_UPLOAD_LIMIT - 1)
                .handler(ctx -> check(ctx, max.asLongValue())));
    }

    private void check(RoutingContext ctx, long max) {
        String declared = ctx.request().getHeader(HttpHeaderNames.CONTENT_LENGTH);
        if (declared == null || !declared.chars().allMatch(Character::isDigit)
                || declared.length() < 19 && Long.parseLong(declared) <= max) {
            ctx.next(); // no length, or one Vert.x refuses itself, or within the limit
            return;
        }
        ctx.response().setStatusCode(413).putHeader(HttpHeaderNames.CONTENT_TYPE, "application/json")
                .putHeader(HttpHeaderNames.CONNECTION, "close")
                .putHeader(RequestIds.HEADER, RequestIds.accept(ctx.request().getHeader(RequestIds.HEADER)))
                .endHandler(done -> ctx.request().connection().close()).end(Buffer.buffer(refusal));
    }
}
