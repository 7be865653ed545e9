package com.convplatform.upload.config;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import com.convplatform.support.ApiKeys;
import com.convplatform.support.Roles;
import com.convplatform.upload.auth.TokenIdentityProvider;

/**
 * The operator key of this service as a role (service-support's ApiKeyMechanism), and the refusal of an upload sent
 * without credentials (spec 7: 401 stating invalid authorization details).
 */
public class ApiKeysProducer {
    @Produces
    @Singleton
    ApiKeys keys(UploadConfig config) {
        return ApiKeys.of().with(Roles.OPERATOR, "upload.admin.api-key", config.admin().apiKey())
                .refusing(TokenIdentityProvider.CLIENT, TokenIdentityProvider.invalid(
                        "send 'Authorization: Bearer <access token>' and the client-id header"));
    }
}
