package com.convplatform.support;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import com.fasterxml.jackson.annotation.JsonProperty;

import io.quarkus.runtime.annotations.RegisterForReflection;

/** The body of every refusal of every service: a stable code and a sentence a person can act on. */
@RegisterForReflection // also written by hand (BodyLimit, the upload route), not only as a resource's answer
@Schema(name = "Error", description = "Every refusal: a stable machine-readable code and a sentence a person can act on")
public record ApiError(
        @JsonProperty("error_code") @Schema(example = "UNAUTHORIZED", description = "Stable code; see the service README's error table") String errorCode,
        @JsonProperty("error_message") @Schema(example = "Send the operator key as 'Authorization: Bearer <key>'") String errorMessage) {
}
