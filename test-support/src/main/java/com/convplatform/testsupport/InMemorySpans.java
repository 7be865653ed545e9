package com.convplatform.testsupport;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;

/**
 * The tests' span exporter: every ended span, kept in memory for the tests to read (a SpanExporter bean also keeps
 * the OTLP exporter from being set up). A service whose tests want it indexes test-support
 * ({@code %test.quarkus.index-dependency.test-support.*}).
 */
@Singleton
public class InMemorySpans {
    @Produces
    @Singleton
    InMemorySpanExporter exporter() {
        return InMemorySpanExporter.create();
    }
}
