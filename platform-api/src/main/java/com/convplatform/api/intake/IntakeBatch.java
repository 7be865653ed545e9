package com.convplatform.api.intake;

import java.util.List;

import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * {@code POST /internal/v1/events/batch}: upload-service posts {@link IntakeEvent}s; hook-service binds each event on
 * its own (a tree), so that one invalid event is refused alone.
 */
public record IntakeBatch<E>(
        @JsonProperty("events") @NotNull(message = INVALID_BATCH) @Size(min = 1, max = MAX_BATCH, message = INVALID_BATCH) @Schema(type = SchemaType.ARRAY, implementation = IntakeEvent.class) List<E> events) {
    public static final int MAX_BATCH = 100;
    public static final String INVALID_BATCH = "INVALID_BATCH: The body must be {\"events\": [...]} with 1 to "
            + MAX_BATCH + " events";
}
