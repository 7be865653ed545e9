package com.convplatform.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;

class TraceContextsTest {
    static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    static final String SPAN = "00f067aa0ba902b7";
    static final String TRACEPARENT = "00-" + TRACE + "-" + SPAN + "-01";

    @Test
    void aStoredTraceparentComesBackAsTheRemoteParent() {
        SpanContext parent = TraceContexts.spanContext(TRACEPARENT);
        assertTrue(parent.isValid());
        assertTrue(parent.isRemote());
        assertEquals(TRACE, parent.getTraceId());
        assertEquals(SPAN, parent.getSpanId());
        assertTrue(parent.isSampled());
        assertEquals(TRACEPARENT, TraceContexts.of(TraceContexts.parent(TRACEPARENT)));
    }

    @Test
    void theCurrentSpanIsWrittenAsTraceparent() {
        SpanContext span = SpanContext.create(TRACE, SPAN, TraceFlags.getDefault(), TraceState.getDefault());
        try (Scope ignored = Context.root().with(Span.wrap(span)).makeCurrent()) {
            assertEquals("00-" + TRACE + "-" + SPAN + "-00", TraceContexts.current());
        }
        assertEquals("00-" + TRACE + "-" + SPAN + "-00", TraceContexts.of(span));
    }

    @Test
    void noSpanNoTraceparent() {
        assertNull(TraceContexts.current());
        assertNull(TraceContexts.of(Context.root()));
    }

    @Test
    void nothingOrSomethingElseStartsATraceOfItsOwn() {
        for (String stored : new String[]{null, "", "garbage", "00-" + TRACE + "-" + SPAN,
                "00-00000000000000000000000000000000-" + SPAN + "-01", "00-" + TRACE + "-0000000000000000-01",
                "00-" + TRACE.toUpperCase() + "-" + SPAN + "-01", "x".repeat(500)}) {
            assertFalse(TraceContexts.spanContext(stored).isValid(), String.valueOf(stored));
            assertEquals(Context.root(), TraceContexts.parent(stored), String.valueOf(stored));
        }
    }
}
