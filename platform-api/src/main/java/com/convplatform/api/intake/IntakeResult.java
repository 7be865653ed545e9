package com.convplatform.api.intake;

import java.util.List;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * One event's result in a batch's answer ({@link Results}): 202 stored, 200 accepted before (duplicate), 400 refused
 * with its code and message. The single call answers {@link Stored}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record IntakeResult(@JsonProperty("status") @Schema(enumeration = {
        "202", "200", "400"}) int status,
        @JsonProperty("event_id") @Schema(example = EXAMPLE_ID) String eventId,
        @JsonProperty("duplicate") Boolean duplicate,
        @JsonProperty("error_code") @Schema(example = "MISSING_FIELD") String errorCode,
        @JsonProperty("error_message") @Schema(example = "'user_id' is required and must be a non-empty string") String errorMessage){
    public static final String EXAMPLE_ID = "019ab3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b";

    public static IntakeResult stored(String eventId, boolean duplicate) {
        return new IntakeResult(duplicate ? 200 : 202, eventId, duplicate ? true : null, null, null);
    }

    public static IntakeResult refused(String errorCode, String errorMessage) {
        return new IntakeResult(400, null, null, errorCode, errorMessage);
    }

    public boolean accepted() {
        return status == 200 || status == 202;
    }

    /** The batch's answer: one result per event, in order. */
    public record Results(@JsonProperty("results") List<IntakeResult> results) {
    }

    /** The single call's answer (202, or 200 with {@code duplicate} true). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Stored(@JsonProperty("event_id") @Schema(example = EXAMPLE_ID) String eventId,
            @JsonProperty("duplicate") @Schema(description = "Present (true) when the event had been accepted before") Boolean duplicate) {
    }
}
