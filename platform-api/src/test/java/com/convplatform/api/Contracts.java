package com.convplatform.api;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The recorded JSON of each contract ({@code contracts/*.json}, one line, exactly as on the wire). The producer's
 * tests check that what it writes is this text; the consumer's that it binds and answers it: a change made on one side
 * alone fails the other side's test.
 */
public final class Contracts {
    /** upload-service's hand-off event, as stored in its outbox and posted (less the batch's traceparent). */
    public static final String INTAKE_EVENT = "intake-event.json";
    /** {@code POST /internal/v1/events/batch}: one event of an upload, with its hand-off span's traceparent. */
    public static final String INTAKE_BATCH = "intake-batch.json";
    /** The same event as hook-service stores it: the delivered hook's body, before its signature_timestamp. */
    public static final String HOOK_BODY = "hook-body.json";
    /** The batch's answer: stored, duplicate, refused. */
    public static final String INTAKE_RESULTS = "intake-results.json";
    /** hook-service's {@code GET /admin/v1/deliveries/summary}, as the console reads it. */
    public static final String HOOK_SUMMARY = "hook-summary.json";
    /** hook-service's {@code GET /admin/v1/deliveries/{id}}, as the console reads it. */
    public static final String HOOK_DELIVERY_DETAIL = "hook-delivery-detail.json";

    private Contracts() {
    }

    public static String sample(String name) {
        try (InputStream in = Contracts.class.getResourceAsStream("/contracts/" + name)) {
            if (in == null) {
                throw new IllegalArgumentException("No recorded contract " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
