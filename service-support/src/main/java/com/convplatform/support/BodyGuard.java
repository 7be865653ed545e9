package com.convplatform.support;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.quarkus.vertx.http.runtime.RouteConstants;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Bounds what a request body may cost while it arrives, before anything knows who sent it: the body must arrive in
 * full within {@code platform.http.body-deadline} (else 408 {@code BODY_TIMEOUT} and the connection is closed), and at
 * most {@code platform.http.max-bodies-per-source} bodies may be arriving at once from one source (an IPv4 address, or
 * an IPv6 /64: {@link SourceAddresses}), else 429 {@code TOO_MANY_BODIES} at once.
 * <p>
 * The bodies themselves are read on the event loop as they arrive, never by a worker thread that waits for them:
 * Quarkus REST buffers up to {@code quarkus.rest.input-buffer-size} on the event loop and only then switches to a
 * blocking read on a worker, so each service sets that size to its body limit (application.properties). A stalled
 * body therefore holds a connection and a slot of its source, never a thread, and ends at the deadline.
 */
@ApplicationScoped
public class BodyGuard {
    /**
     * Put on the routing context by an endpoint that reads its body itself under a deadline of its own (the upload's
     * form): its own time-out answers, and this one does not cut in (two handlers closing the same parts at once).
     */
    public static final String OWN_DEADLINE = "platform.body-guard.own-deadline";
    private final long deadlineMillis;
    private final int perSource;
    private final ConcurrentHashMap<String, Integer> arriving = new ConcurrentHashMap<>();
    private final Counter timedOut;
    private final Counter refused;
    private final String timeoutMessage;
    private final ObjectMapper json;

    public BodyGuard(@ConfigProperty(name = "platform.http.body-deadline", defaultValue = "PT10S") Duration deadline,
            @ConfigProperty(name = "platform.http.max-bodies-per-source", defaultValue = "32") int perSource,
            MeterRegistry metrics, ObjectMapper json,
            @ConfigProperty(name = "quarkus.application.name") String service) {
        ConfigChecks.of(service).positive("platform.http.body-deadline", deadline)
                .require(perSource >= 1, "platform.http.max-bodies-per-source (" + perSource + ") must be at least 1:"
                        + " with fewer every request with a body would be refused 429 TOO_MANY_BODIES (it has no"
                        + " 'no limit' value)", "platform.http.max-bodies-per-source")
                .throwIfAny();
        this.json = json;
        this.deadlineMillis = Math.max(1, deadline.toMillis());
        this.perSource = perSource;
        this.timeoutMessage = "The request body did not arrive in full within "
                + (deadline.toMillis() % 1000 == 0 ? deadline.toSeconds() + " s" : deadline.toMillis() + " ms")
                + " (platform.http.body-deadline); send it again on a faster connection";
        this.timedOut = Counter.builder("http.bodies.refused").tag("reason", "deadline")
                .description("Request bodies refused while they arrived: too slow (deadline) or too many at once from"
                        + " one source (per_source)")
                .register(metrics);
        this.refused = Counter.builder("http.bodies.refused").tag("reason", "per_source")
                .description("Request bodies refused while they arrived: too slow (deadline) or too many at once from"
                        + " one source (per_source)")
                .register(metrics);
    }

    void install(@Observes Router router) {
        // before everything that may read a body, authentication (a form sign-in) included
        router.route().order(RouteConstants.ROUTE_ORDER_BODY_HANDLER + 1).handler(this::guard);
    }

    /** Bodies arriving now from the source of {@code address} (for tests and the figures). */
    public int arriving(String address) {
        return arriving.getOrDefault(SourceAddresses.key(address), 0);
    }

    private void guard(RoutingContext ctx) {
        HttpServerRequest request = ctx.request();
        if (request.isEnded() || !carriesBody(request)) {
            ctx.next();
            return;
        }
        String source = SourceAddresses
                .key(request.remoteAddress() == null ? null : request.remoteAddress().hostAddress());
        if (!take(source)) {
            refused.increment();
            refuse(ctx, 429, "TOO_MANY_BODIES", perSource + " request bodies are arriving from your address at once,"
                    + " the most this service takes (platform.http.max-bodies-per-source); send this one again once"
                    + " one of them has been answered");
            return;
        }
        AtomicBoolean released = new AtomicBoolean();
        long[] timer = new long[1];
        Runnable release = () -> {
            if (released.compareAndSet(false, true)) {
                ctx.vertx().cancelTimer(timer[0]);
                give(source);
            }
        };
        timer[0] = ctx.vertx().setTimer(deadlineMillis, t -> {
            if (ctx.get(OWN_DEADLINE) == null && !request.isEnded() && !ctx.response().ended()
                    && !ctx.response().closed()) {
                release.run();
                timedOut.increment();
                refuse(ctx, 408, "BODY_TIMEOUT", timeoutMessage);
            }
        });
        ctx.addEndHandler(ended -> release.run()); // answered, or the client went away
        request.end().onComplete(ended -> release.run()); // arrived in full (or failed: the connection then closes)
        ctx.next();
    }

    private static boolean carriesBody(HttpServerRequest request) {
        if (request.version() == HttpVersion.HTTP_2) {
            return true; // not ended: its body is still to come
        }
        String length = request.getHeader(HttpHeaderNames.CONTENT_LENGTH);
        return request.headers().contains(HttpHeaderNames.TRANSFER_ENCODING)
                || length != null && !length.isEmpty() && !"0".equals(length);
    }

    private boolean take(String source) {
        boolean[] taken = {false};
        arriving.compute(source, (key, n) -> {
            int now = n == null ? 0 : n;
            taken[0] = now < perSource;
            return taken[0] ? now + 1 : (n == null ? null : now);
        });
        return taken[0];
    }

    private void give(String source) {
        arriving.computeIfPresent(source, (key, n) -> n <= 1 ? null : n - 1);
    }

    /** Answers at once and drops the rest of the body: over HTTP/1 the connection is closed after the answer. */
    private void refuse(RoutingContext ctx, int status, String code, String message) {
        HttpServerResponse response = ctx.response();
        if (response.headWritten()) {
            return; // something answers already; the connection ends with it
        }
        response.setStatusCode(status).putHeader(HttpHeaderNames.CONTENT_TYPE, "application/json")
                .putHeader(RequestIds.HEADER, RequestIds.id());
        if (status == 429) {
            response.putHeader(HttpHeaderNames.RETRY_AFTER, "1");
        }
        Buffer body = Buffer.buffer(json.valueToTree(new ApiError(code, message)).toString());
        if (ctx.request().version() == HttpVersion.HTTP_2) {
            response.end(body).onComplete(done -> response.reset(0));
        } else {
            response.putHeader(HttpHeaderNames.CONNECTION, "close")
                    .end(body).onComplete(done -> ctx.request().connection().close());
        }
    }
}
