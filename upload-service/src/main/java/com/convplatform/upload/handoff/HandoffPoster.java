package com.convplatform.upload.handoff;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.faulttolerance.exceptions.FaultToleranceException;

import com.convplatform.api.intake.IntakeEvent;
import com.convplatform.support.TraceContexts;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;

/** Posts claimed events to hook-service's intake, a batch in one call where it can, each event under its own span. */
@ApplicationScoped
class HandoffPoster {
    private final HookIntakeClient intake;
    private final HandoffTracing tracing;

    HandoffPoster(HookIntakeClient intake, HandoffTracing tracing) {
        this.intake = intake;
        this.tracing = tracing;
    }

    /** Posts a batch; per event null (accepted) or why not. */
    List<String> post(List<Claimed> batch) {
        List<Span> spans = tracing.start(batch);
        List<String> errors = null;
        try {
            errors = postBatch(batch, spans);
        } finally {
            HandoffTracing.end(spans, errors);
        }
        return errors;
    }

    /** Posts under the first event's span, each event with its own span's traceparent; per event null or why not. */
    private List<String> postBatch(List<Claimed> batch, List<Span> spans) {
        List<IntakeEvent> events = new ArrayList<>(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            IntakeEvent event = batch.get(i).event();
            String traceparent = TraceContexts.of(spans.get(i).getSpanContext());
            events.add(traceparent == null ? event : event.withBatchFields(event.requestId(), traceparent));
        }
        try (Scope ignored = spans.get(0).makeCurrent()) {
            List<String> errors = intake.postBatch(events);
            return errors != null ? errors : postEach(events, spans);
        } catch (IOException | FaultToleranceException e) {
            return Collections.nCopies(batch.size(), e.getMessage());
        }
    }

    /** One call per event (no batch intake, or a batch too large), the request id and trace context as headers only. */
    private List<String> postEach(List<IntakeEvent> events, List<Span> spans) {
        List<String> out = new ArrayList<>(events.size());
        for (int i = 0; i < events.size(); i++) {
            IntakeEvent event = events.get(i);
            try (Scope ignored = spans.get(i).makeCurrent()) {
                out.add(intake.postOne(event.withBatchFields(null, null), event.requestId()));
            } catch (IOException | FaultToleranceException e) {
                out.add(e.getMessage());
            }
        }
        return out;
    }
}
