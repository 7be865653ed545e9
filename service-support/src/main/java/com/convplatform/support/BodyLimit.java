package com.convplatform.support;

import java.util.Locale;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.quarkus.runtime.configuration.MemorySize;
import io.quarkus.vertx.http.runtime.RouteConstants;
import io.quarkus.vertx.http.runtime.security.QuarkusHttpUser;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * Refuses a body over {@code quarkus.http.limits.max-body-size} with the {@link ApiError} body, where Quarkus's own
 * check answers the same 413 with an empty body: a declared length over it before the body is read; a chunked body (no
 * length declared) once it passes it. Such a body is read by Vert.x Web's {@code BodyHandler}, whose body Quarkus REST
 * then takes as it is, after the request's credentials have been checked (a refused key is answered 401 with the body
 * unread; a request without credentials is read, as the signed API's are anyway, and refused where a role is needed).
 * The connection is closed after the answer, as Quarkus does, since the rest of the body is not read; over HTTP/2 only
 * the request's stream is reset (with NO_ERROR, after the whole answer). A multipart body is left to its endpoint's own
 * reader (upload-service's {@code UploadBody}). {@code platform.http.body-too-large-code} names the code
 * (upload-service: {@code FILE_TOO_LARGE}). The message states the limit once, as "10 MiB (10,485,760 bytes)":
 * {@code platform.http.body-too-large-subject} (default {@code body}) names what is too large and
 * {@code platform.http.body-too-large-stated-limit} (default the body limit) the limit stated, so that upload-service
 * answers a body over its bound with the very words of a file over its limit (the bound is that limit plus room for
 * the form's other fields, which cannot fill it).
 * <p>
 * An HTTP/2 body that declares no length is left to Quarkus REST's reader, which refuses it past the limit with an
 * empty 413: the {@code BodyHandler} cannot read it first, since Quarkus REST then pauses a request that has ended,
 * which Vert.x refuses over HTTP/2 ("Request has already been read").
 */
@ApplicationScoped
public class BodyLimit {
    private static final String READING = "platform.body-limit.reading";
    private final Optional<MemorySize> limit;
    private final byte[] refusal;

    public BodyLimit(@ConfigProperty(name = "quarkus.http.limits.max-body-size") Optional<MemorySize> limit,
            @ConfigProperty(name = "platform.http.body-too-large-code", defaultValue = "BODY_TOO_LARGE") String code,
            @ConfigProperty(name = "platform.http.body-too-large-subject", defaultValue = "body") String subject,
            @ConfigProperty(name = "platform.http.body-too-large-stated-limit") Optional<MemorySize> stated,
            ObjectMapper json) throws JsonProcessingException {
        this.limit = limit;
        this.refusal = json.writeValueAsBytes(new ApiError(code, tooLarge(subject,
                stated.or(() -> limit).map(MemorySize::asLongValue).orElse(0L))));
    }

    /** "The file is larger than the limit of 10 MiB (10,485,760 bytes)": the one wording of every such refusal. */
    public static String tooLarge(String subject, long limit) {
        return "The " + subject + " is larger than the limit of " + size(limit);
    }

    /** "10 MiB (10,485,760 bytes)", "64 KiB (65,536 bytes)", or "1,000 bytes" when neither is whole. */
    public static String size(long bytes) {
        String exact = String.format(Locale.ROOT, "%,d bytes", bytes);
        if (bytes > 0 && bytes % (1024 * 1024) == 0) {
            return bytes / (1024 * 1024) + " MiB (" + exact + ")";
        } else if (bytes > 0 && bytes % 1024 == 0) {
            return bytes / 1024 + " KiB (" + exact + ")";
        }
        return exact;
    }

    void install(@Observes Router router) {
        limit.ifPresent(max -> {
            BodyHandler chunked = BodyHandler.create(false).setBodyLimit(max.asLongValue());
            router.route().order(RouteConstants.ROUTE_ORDER_UPLOAD_LIMIT - 1)
                    .handler(ctx -> check(ctx, max.asLongValue(), chunked)).failureHandler(ctx -> {
                        if (ctx.get(READING) == null || ctx.statusCode() != 413) {
                            ctx.next(); // another route's failure, or not the limit's
                        } else if (!ctx.response().ended()) {
                            refuse(ctx); // the body passed the limit
                        } // else answered already: the rest of the body fails as the connection closes
                    });
        });
    }

    private void check(RoutingContext ctx, long max, BodyHandler chunked) {
        String declared = ctx.request().getHeader(HttpHeaderNames.CONTENT_LENGTH);
        if (declared == null) {
            String type = ctx.request().getHeader(HttpHeaderNames.CONTENT_TYPE);
            if (ctx.request().version() == HttpVersion.HTTP_2) {
                // Quarkus's own refusal of such a body adds an HTTP/1 header, which HTTP/2 forbids (see the class note)
                ctx.addHeadersEndHandler(v -> ctx.response().headers().remove(HttpHeaderNames.CONNECTION));
                ctx.next();
            } else if (ctx.request().headers().contains(HttpHeaderNames.TRANSFER_ENCODING)
                    && (type == null || !type.regionMatches(true, 0, "multipart/", 0, 10))) {
                // credentials first: a refused key is answered 401 by Quarkus REST, the body unread
                Context context = Vertx.currentContext();
                QuarkusHttpUser.getSecurityIdentity(ctx, null).subscribe().with(
                        identity -> context.runOnContext(v -> {
                            ctx.put(READING, true);
                            chunked.handle(ctx);
                        }),
                        refused -> context.runOnContext(v -> ctx.next()));
            } else {
                ctx.next();
            }
        } else if (!declared.chars().allMatch(Character::isDigit)
                || declared.length() < 19 && Long.parseLong(declared) <= max) {
            ctx.next(); // one Vert.x refuses itself, or within the limit
        } else {
            refuse(ctx);
        }
    }

    private void refuse(RoutingContext ctx) {
        HttpServerResponse response = ctx.response().setStatusCode(413)
                .putHeader(HttpHeaderNames.CONTENT_TYPE, "application/json")
                .putHeader(RequestIds.HEADER, RequestIds.id());
        if (ctx.request().version() == HttpVersion.HTTP_2) {
            // HTTP/2 forbids a connection header, and the connection carries other streams: this stream alone ends
            response.end(Buffer.buffer(refusal)).onComplete(done -> response.reset(0));
        } else {
            response.putHeader(HttpHeaderNames.CONNECTION, "close")
                    .endHandler(done -> ctx.request().connection().close()).end(Buffer.buffer(refusal));
        }
    }
}
