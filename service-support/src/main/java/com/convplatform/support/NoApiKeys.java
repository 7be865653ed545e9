package com.convplatform.support;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import io.quarkus.arc.DefaultBean;

/**
 * The {@link ApiKeys} of a service without bearer keys of its own (the console): every role closed. A service with
 * keys produces its own ({@code apiKeys} in its config package), which replaces this one.
 */
public class NoApiKeys {
    @Produces
    @Singleton
    @DefaultBean
    ApiKeys apiKeys() {
        return ApiKeys.of();
    }
}
