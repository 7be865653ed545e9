package com.convplatform.hook.config;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import com.convplatform.support.ApiKeys;
import com.convplatform.support.Roles;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;

import io.quarkus.jackson.ObjectMapperCustomizer;

/** What this service sets in the framework: its keys as roles, and JSON bound strictly. */
@Singleton
public class FrameworkSetup implements ObjectMapperCustomizer {
    @Produces
    @Singleton
    ApiKeys apiKeys(HookConfig config) {
        return ApiKeys.of().with(Roles.OPERATOR, "hook.admin.api-key", config.adminApiKey())
                .with(Roles.INTERNAL, "hook.internal.api-key", config.internalApiKey());
    }

    /** Fields bind only to their own type: a number is not a string, nor a string or a fraction an integer. */
    @Override
    @SuppressWarnings("deprecation") // the builder is not how Quarkus hands the mapper over
    public void customize(ObjectMapper mapper) {
        mapper.configure(MapperFeature.ALLOW_COERCION_OF_SCALARS, false);
        mapper.disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT);
        mapper.coercionConfigFor(LogicalType.Textual).setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
    }
}
