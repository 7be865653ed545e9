package com.convplatform.support;

import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;

import org.jboss.logging.MDC;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;

/**
 * The request id is the trace id of the request's W3C trace context ({@code traceparent}, which OpenTelemetry takes
 * from the caller or starts, passes on with every call to another service and which queued work keeps): one id,
 * logged as {@code request_id} while the request runs, stored with the work it leaves behind, shown by the console and
 * returned in the answer's {@value #HEADER}. A caller's own {@value #HEADER} is accepted when it is a plain token of at
 * most 64 characters and logged as {@code caller_request_id} beside it, never carried on as a second id.
 */
public class RequestIds {
    public static final String HEADER = "X-Request-Id";
    public static final String MDC_KEY = "request_id";
    public static final String CALLER_MDC_KEY = "caller_request_id";
    private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9._:-]{1,64}");

    /**
     * The id of the work on this thread: the trace id of its current span, or, with tracing off, a new random one of
     * the same form (32 hex digits, from a non-cryptographic generator: an id only has to be unique).
     */
    public static String id() {
        SpanContext span = Span.current().getSpanContext();
        if (span.isValid()) {
            return span.getTraceId();
        }
        ThreadLocalRandom random = ThreadLocalRandom.current();
        return String.format("%016x%016x", random.nextLong(), random.nextLong() | 1);
    }

    /** The trace id of a stored traceparent, as the request id of the work it names; null when it names none. */
    public static String of(String traceparent) {
        SpanContext span = TraceContexts.spanContext(traceparent);
        return span.isValid() ? span.getTraceId() : null;
    }

    /** A caller's {@value #HEADER} when it is safe to log, else null. */
    public static String fromCaller(String offered) {
        return offered != null && SAFE.matcher(offered).matches() ? offered : null;
    }

    /** The id of the request this thread serves, if any. */
    public static String current() {
        Object id = MDC.get(MDC_KEY);
        return id == null ? null : id.toString();
    }

    @ServerRequestFilter(preMatching = true)
    public void onRequest(ContainerRequestContext request) {
        String id = id();
        request.setProperty(MDC_KEY, id);
        MDC.put(MDC_KEY, id);
        String caller = fromCaller(request.getHeaderString(HEADER));
        if (caller != null) {
            MDC.put(CALLER_MDC_KEY, caller);
        }
    }

    /**
     * Response filters run from the highest priority down: this one, below the default, runs after the others, so
     * that what they log (the operator audit's line) still carries the request id.
     */
    @ServerResponseFilter(priority = Priorities.USER - 100)
    public void onResponse(ContainerRequestContext request, ContainerResponseContext response) {
        Object id = request.getProperty(MDC_KEY);
        if (id != null) {
            response.getHeaders().putSingle(HEADER, id);
        }
        MDC.remove(MDC_KEY);
        MDC.remove(CALLER_MDC_KEY);
    }
}
