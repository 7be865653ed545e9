package com.convplatform.hook.error;

import com.fasterxml.jackson.annotation.JsonProperty;

/** The error body of every refusal. */
public record ApiError(@JsonProperty("error_code") String errorCode,
        @JsonProperty("error_message") String errorMessage) {
}
