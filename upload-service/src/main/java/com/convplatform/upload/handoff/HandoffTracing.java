package com.convplatform.upload.handoff;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import com.convplatform.api.intake.IntakeEvent;
import com.convplatform.support.TraceContexts;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;

/**
 * One {@value #WAIT} span per event and post, in its upload's trace (docs/operations.md, Tracing). Attributes are ids
 * and counts only: never the message or a key.
 */
@ApplicationScoped
public class HandoffTracing {
    public static final String WAIT = "upload.handoff";
    static final AttributeKey<String> OUTBOX_ID = AttributeKey.stringKey("platform.outbox_id");
    static final AttributeKey<Long> MESSAGE_ID = AttributeKey.longKey("platform.message_id");
    static final AttributeKey<String> ACCOUNT_ID = AttributeKey.stringKey("platform.account_id");
    static final AttributeKey<String> REQUEST_ID = AttributeKey.stringKey("platform.request_id");
    static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("platform.handoff.attempt");
    static final AttributeKey<Long> BATCH_SIZE = AttributeKey.longKey("platform.handoff.batch_size");
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

    private final Tracer tracer;

    public HandoffTracing(Tracer tracer) {
        this.tracer = tracer;
    }

    /** Starts each event's span, backdated to when it was written. */
    List<Span> start(List<Claimed> batch) {
        List<Span> spans = batch.stream().map(c -> start(c, batch.size())).toList();
        spans.subList(1, spans.size()).forEach(span -> span.addLink(spans.get(0).getSpanContext()));
        return spans;
    }

    private Span start(Claimed c, int batchSize) {
        SpanBuilder span = tracer.spanBuilder(WAIT).setSpanKind(SpanKind.INTERNAL)
                .setParent(TraceContexts.parent(c.traceparent())).setAttribute(OUTBOX_ID, c.id())
                .setAttribute(ATTEMPT, (long) c.attempt()).setAttribute(BATCH_SIZE, (long) batchSize);
        if (c.storedAt() != null) {
            span.setStartTimestamp(c.storedAt());
        }
        IntakeEvent event = c.event();
        if (event.messageId() != null) {
            span.setAttribute(MESSAGE_ID, event.messageId());
        }
        if (event.accountId() != null) {
            span.setAttribute(ACCOUNT_ID, event.accountId());
        }
        if (event.requestId() != null) {
            span.setAttribute(REQUEST_ID, event.requestId());
        }
        return span.startSpan();
    }

    /** Ends each span with its error (null: accepted); {@code errors} null: the post was cut off. */
    static void end(List<Span> spans, List<String> errors) {
        for (int i = 0; i < spans.size(); i++) {
            String error = errors == null ? "the post was cut off (the service is stopping)" : errors.get(i);
            Span span = spans.get(i);
            if (error != null) {
                span.setAttribute(ERROR_TYPE, error.startsWith("hook-service refused") ? "refused" : "not_accepted");
                span.setStatus(StatusCode.ERROR, error);
            }
            span.end();
        }
    }
}
