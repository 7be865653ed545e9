package com.convplatform.hook;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;

/**
 * The tests' span exporter: every ended span, kept in memory for the tests to read (a SpanExporter bean also keeps
 * the OTLP exporter from being set up).
 */
@Singleton
public class InMemorySpans {
    @Produces
    @Singleton
    InMemorySpanExporter exporter() {
        return InMemorySpanExporter.create();
    }
}
