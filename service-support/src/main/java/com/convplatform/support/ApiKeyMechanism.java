package com.convplatform.support;

import java.util.List;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.quarkus.security.identity.IdentityProviderManager;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.request.AuthenticationRequest;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.quarkus.vertx.http.runtime.security.ChallengeData;
import io.quarkus.vertx.http.runtime.security.HttpAuthenticationMechanism;
import io.quarkus.vertx.http.runtime.security.HttpCredentialTransport;
import io.smallrye.mutiny.Uni;
import io.vertx.ext.web.RoutingContext;

/**
 * Turns {@code Authorization: Bearer <key>} into the roles whose configured key it is ({@link ApiKeys}); resources
 * declare what they need with {@code @RolesAllowed}. A bearer that is none of the keys gives no identity, so another
 * mechanism of the service (upload-service's tokens) may take it; an endpoint that needs a role then answers 401
 * ({@link ErrorMappers}). Authentication runs when a secured endpoint has been matched, before its body is read
 * ({@code quarkus.http.auth.proactive=false} in every service: the unsecured endpoints skip it).
 */
@ApplicationScoped
public class ApiKeyMechanism implements HttpAuthenticationMechanism {
    private static final String BEARER = "Bearer ";
    private static final Uni<ChallengeData> CHALLENGE = Uni.createFrom()
            .item(new ChallengeData(401, HttpHeaderNames.WWW_AUTHENTICATE, "Bearer"));

    private final ApiKeys keys;

    public ApiKeyMechanism(ApiKeys keys) {
        this.keys = keys;
    }

    @Override
    public Uni<SecurityIdentity> authenticate(RoutingContext context, IdentityProviderManager identityProviderManager) {
        String header = context.request().getHeader(HttpHeaderNames.AUTHORIZATION);
        if (header == null || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return Uni.createFrom().nullItem();
        }
        List<String> roles = keys.rolesOf(header.substring(BEARER.length()).trim());
        if (roles.isEmpty()) {
            return Uni.createFrom().nullItem();
        }
        return Uni.createFrom().item(QuarkusSecurityIdentity.builder()
                .setPrincipal(new QuarkusPrincipal(roles.get(0) + "-key")).addRoles(Set.copyOf(roles)).build());
    }

    @Override
    public Uni<ChallengeData> getChallenge(RoutingContext context) {
        return CHALLENGE;
    }

    @Override
    public Set<Class<? extends AuthenticationRequest>> getCredentialTypes() {
        return Set.of(); // the identity is built here; no identity provider is involved
    }

    @Override
    public Uni<HttpCredentialTransport> getCredentialTransport(RoutingContext context) {
        return Uni.createFrom().item(new HttpCredentialTransport(HttpCredentialTransport.Type.AUTHORIZATION, "bearer"));
    }

    /** Before a service's token mechanism: a configured key is recognised at once. */
    @Override
    public int getPriority() {
        return DEFAULT_PRIORITY + 100;
    }
}
