package com.convplatform.console.security;

import jakarta.enterprise.context.ApplicationScoped;

import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.IdentityProvider;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.request.TrustedAuthenticationRequest;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.smallrye.mutiny.Uni;

/**
 * The signed-in operator on every later request: the form mechanism decrypts its session cookie, which holds the
 * session's id; the session must still be open here ({@link Sessions}: not signed out, not idle too long, not past its
 * lifetime). A cookie of an ended session, or one made before sessions were held here, opens nothing.
 */
@ApplicationScoped
public class SessionIdentityProvider implements IdentityProvider<TrustedAuthenticationRequest> {
    private final Sessions sessions;

    public SessionIdentityProvider(Sessions sessions) {
        this.sessions = sessions;
    }

    @Override
    public Class<TrustedAuthenticationRequest> getRequestType() {
        return TrustedAuthenticationRequest.class;
    }

    @Override
    public Uni<SecurityIdentity> authenticate(TrustedAuthenticationRequest request,
            AuthenticationRequestContext context) {
        return sessions.use(request.getPrincipal())
                .map(s -> Uni.createFrom().<SecurityIdentity>item(QuarkusSecurityIdentity.builder()
                        .setPrincipal(new QuarkusPrincipal(s.id())).addAttribute(Operator.NAME_ATTRIBUTE, s.operator())
                        .addAttribute(Operator.SESSION_ATTRIBUTE, s.id()).addRole(Operator.ROLE).build()))
                .orElseGet(() -> Uni.createFrom().failure(new AuthenticationFailedException()));
    }
}
