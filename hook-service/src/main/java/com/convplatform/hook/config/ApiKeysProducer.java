package com.convplatform.hook.config;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import com.convplatform.support.ApiKeys;
import com.convplatform.support.Roles;

/** The operator and internal keys of this service, as roles (service-support's ApiKeyMechanism). */
public class ApiKeysProducer {
    @Produces
    @Singleton
    ApiKeys keys(HookConfig config) {
        return ApiKeys.of().with(Roles.OPERATOR, "hook.admin.api-key", config.admin().apiKey())
                .with(Roles.INTERNAL, "hook.internal.api-key", config.internal().apiKey());
    }
}
