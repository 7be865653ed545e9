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
    /** The operator and internal keys of this service, as roles (service-support's ApiKeyMechanism). */
    @Produces
    @Singleton
    ApiKeys keys(HookConfig config) {
        return ApiKeys.of().with(Roles.OPERATOR, "hook.admin.api-key", config.adminApiKey())
                .with(Roles.INTERNAL, "hook.internal.api-key", config.internalApiKey());
    }

    /**
     * Fields bind only to their own type, as intake has always checked them: a number is not taken for a string
     * ({@code "user_id": 5}), nor a string or a fraction for an integer ({@code "message_id": "12"} or {@code 1.5}).
     */
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
