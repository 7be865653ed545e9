package com.convplatform.support;

import jakarta.inject.Singleton;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkus.jackson.ObjectMapperCustomizer;

/**
 * JSON bodies are one value and nothing after it: {@code {"a":1} {"b":2}} or {@code {"a":1}x} is malformed
 * ({@link ErrorMappers}: 400 MALFORMED_JSON), where Jackson would otherwise read the first value and ignore the rest.
 */
@Singleton
public class StrictJson implements ObjectMapperCustomizer {
    @Override
    public void customize(ObjectMapper mapper) {
        mapper.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    }
}
