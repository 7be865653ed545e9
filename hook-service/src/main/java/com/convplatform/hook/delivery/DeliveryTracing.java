package com.convplatform.hook.delivery;

import java.time.Instant;
import java.util.Locale;

import jakarta.enterprise.context.ApplicationScoped;

import com.convplatform.support.TraceContexts;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;

/**
 * Delivery's spans (docs/operations.md, Tracing), under its event's trace context. Security: attributes are ids,
 * counts, the status code and a kind of failure, never the hook's body, its signature, a key or the webhook URL.
 */
@ApplicationScoped
public class DeliveryTracing {
    public static final String QUEUE = "hook.delivery.queue";
    public static final String ATTEMPT = "hook.delivery.attempt";
    private static final String ERROR_TYPE = "error.type";
    /** Failures whose text starts so name the webhook URL (which may carry a credential of its owner). */
    private static final String URL_IN_TEXT = "the webhook URL";

    private final Tracer tracer;

    public DeliveryTracing(Tracer tracer) {
        this.tracer = tracer;
    }

    /** A new delivery's wait from its event's intake to its first claim (a span that ended already). */
    void queued(DeliveryStore.Claimed c, Instant claimedAt) {
        if (c.attempt() == 1) {
            start(QUEUE, SpanKind.INTERNAL, c).setStartTimestamp(c.receivedAt()).startSpan().end(claimedAt);
        }
    }

    Span attempt(DeliveryStore.Claimed c) {
        return start(ATTEMPT, SpanKind.CLIENT, c).setAttribute("platform.delivery.attempt", c.attempt())
                .setAttribute("http.request.method", "POST").startSpan();
    }

    private SpanBuilder start(String name, SpanKind kind, DeliveryStore.Claimed c) {
        SpanBuilder span = tracer.spanBuilder(name).setSpanKind(kind).setParent(TraceContexts.parent(c.traceparent()))
                .setAttribute("platform.delivery_id", c.id()).setAttribute("platform.account_id", c.accountId());
        if (c.requestId() != null) {
            span.setAttribute("platform.request_id", c.requestId());
        }
        return span;
    }

    /** Ends an attempt's span with its outcome and where it leaves the delivery; null outcome: cut off. */
    static void end(Span span, DeliveryStore.Outcome o, String status) {
        if (o == null) {
            span.setAttribute(ERROR_TYPE, "cut_off").setStatus(StatusCode.ERROR, "cut off: the service is stopping");
        } else {
            span.setAttribute("platform.delivery.outcome", status.toLowerCase(Locale.ROOT));
            if (o.statusCode() != null) {
                span.setAttribute("http.response.status_code", o.statusCode());
            }
            if (!o.delivered()) {
                if (o.statusCode() != null) {
                    span.setAttribute(ERROR_TYPE, String.valueOf(o.statusCode()));
                }
                boolean namesUrl = o.error() != null && o.error().startsWith(URL_IN_TEXT);
                span.setStatus(StatusCode.ERROR, namesUrl ? "the webhook URL is not a usable http(s) URL" : o.error());
            }
        }
        span.end();
    }

    /** Gives a failure's kind ({@code error.type}) to the current attempt's span; returns the outcome. */
    static DeliveryStore.Outcome failed(String kind, DeliveryStore.Outcome o) {
        Span.current().setAttribute(ERROR_TYPE, kind);
        return o;
    }
}
