package com.convplatform.support;

import java.util.List;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;

/**
 * The W3C trace context ({@value #TRACEPARENT}) of work that leaves its request and waits in the database (upload's
 * outbox, hook-service's delivery queue): taken as text when the work is stored, and restored as the parent of the
 * spans of whoever takes the work up later, so that one upload stays one trace across the services. Written and read
 * by OpenTelemetry's own W3C propagator; the {@code tracestate} header is not kept.
 */
public final class TraceContexts {
    public static final String TRACEPARENT = "traceparent";
    /** The longest traceparent stored (version 00 is 55 characters; a later version may add fields). */
    public static final int MAX_LENGTH = 128;

    private static final TextMapGetter<String> STORED = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(String carrier) {
            return List.of(TRACEPARENT);
        }

        @Override
        public String get(String carrier, String key) {
            return TRACEPARENT.equals(key) ? carrier : null;
        }
    };

    private TraceContexts() {
    }

    /** The traceparent of the span current on this thread; null when there is none (no trace, or tracing off). */
    public static String current() {
        return of(Context.current());
    }

    /** The traceparent of the span in {@code context}; null when it holds no valid span context. */
    public static String of(Context context) {
        if (!Span.fromContext(context).getSpanContext().isValid()) {
            return null;
        }
        String[] traceparent = new String[1];
        W3CTraceContextPropagator.getInstance().inject(context, traceparent, (carrier, key, value) -> {
            if (TRACEPARENT.equals(key)) {
                carrier[0] = value;
            }
        });
        return traceparent[0];
    }

    /** The traceparent of a span. */
    public static String of(SpanContext span) {
        return of(Context.root().with(Span.wrap(span)));
    }

    /**
     * The context a stored traceparent names, to start spans under (as their remote parent); the root context, so that
     * spans start a trace of their own, when it is null or not a valid traceparent.
     */
    public static Context parent(String traceparent) {
        if (traceparent == null || traceparent.length() > MAX_LENGTH) {
            return Context.root();
        }
        return W3CTraceContextPropagator.getInstance().extract(Context.root(), traceparent, STORED);
    }

    /** The span context a stored traceparent names; invalid when it is null or not a valid traceparent. */
    public static SpanContext spanContext(String traceparent) {
        return Span.fromContext(parent(traceparent)).getSpanContext();
    }
}
