package com.convplatform.hook.delivery;

import java.time.Instant;

import jakarta.enterprise.context.ApplicationScoped;

import com.convplatform.support.TraceContexts;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;

/**
 * Delivery's spans (docs/operations.md, Tracing), under the trace context its event came with (the upload's trace):
 * {@value #QUEUE}, a new delivery's wait from its event's intake to its first claim, and one {@value #ATTEMPT} per
 * attempt, from the endpoint's turn to the outcome (the account lookup, when it reaches management-service, is a
 * child). The gap between two attempts is the retry's wait. Attributes are ids, counts, the receiver's status code and
 * a kind of failure: never the hook's body, its signature, a key or the webhook URL.
 */
@ApplicationScoped
public class DeliveryTracing {
    public static final String QUEUE = "hook.delivery.queue";
    public static final String ATTEMPT = "hook.delivery.attempt";
    static final AttributeKey<String> DELIVERY_ID = AttributeKey.stringKey("platform.delivery_id");
    static final AttributeKey<String> ACCOUNT_ID = AttributeKey.stringKey("platform.account_id");
    static final AttributeKey<String> REQUEST_ID = AttributeKey.stringKey("platform.request_id");
    static final AttributeKey<Long> ATTEMPT_NUMBER = AttributeKey.longKey("platform.delivery.attempt");
    static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("platform.delivery.outcome");
    static final AttributeKey<String> METHOD = AttributeKey.stringKey("http.request.method");
    static final AttributeKey<Long> STATUS_CODE = AttributeKey.longKey("http.response.status_code");
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

    /** The start of the failures' texts that name the webhook URL (which may carry a credential of its owner). */
    private static final String URL_IN_TEXT = "the webhook URL";

    private final Tracer tracer;

    public DeliveryTracing(Tracer tracer) {
        this.tracer = tracer;
    }

    /** A new delivery's wait in the queue, from its event's intake to its first claim (a span that ended already). */
    void queued(DeliveryStore.Claimed c, Instant claimedAt) {
        if (c.attempt() != 1) {
            return;
        }
        start(QUEUE, SpanKind.INTERNAL, c).setStartTimestamp(c.receivedAt()).startSpan().end(claimedAt);
    }

    /** Starts an attempt's span; the attempt runs with it current. */
    Span attempt(DeliveryStore.Claimed c) {
        return start(ATTEMPT, SpanKind.CLIENT, c).setAttribute(ATTEMPT_NUMBER, (long) c.attempt())
                .setAttribute(METHOD, "POST").startSpan();
    }

    private SpanBuilder start(String name, SpanKind kind, DeliveryStore.Claimed c) {
        SpanBuilder span = tracer.spanBuilder(name).setSpanKind(kind).setParent(TraceContexts.parent(c.traceparent()))
                .setAttribute(DELIVERY_ID, c.id()).setAttribute(ACCOUNT_ID, c.accountId());
        if (c.requestId() != null) {
            span.setAttribute(REQUEST_ID, c.requestId());
        }
        return span;
    }

    /**
     * Ends an attempt's span with its outcome: the receiver's status code if it answered, where it leaves the delivery
     * ({@code status}: DELIVERED, PENDING or DEAD), and for a failure its kind ({@code error.type}: the status code,
     * or the kind {@link #failed} gave) and its text, unless the text names the webhook URL. Null outcome: the attempt
     * was cut off.
     */
    static void end(Span span, DeliveryStore.Outcome o, String status) {
        if (o == null) {
            span.setAttribute(ERROR_TYPE, "cut_off").setStatus(StatusCode.ERROR, "cut off: the service is stopping");
        } else {
            span.setAttribute(OUTCOME, status.toLowerCase(java.util.Locale.ROOT));
            if (o.statusCode() != null) {
                span.setAttribute(STATUS_CODE, (long) o.statusCode());
            }
            if (!o.delivered()) {
                if (o.statusCode() != null) {
                    span.setAttribute(ERROR_TYPE, String.valueOf(o.statusCode()));
                }
                span.setStatus(StatusCode.ERROR, o.error() != null && o.error().startsWith(URL_IN_TEXT)
                        ? "the webhook URL is not a usable http(s) URL"
                        : o.error());
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
