package com.convplatform.console.security;

import java.time.Duration;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.IdentityProvider;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.request.UsernamePasswordAuthenticationRequest;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.quarkus.vertx.http.runtime.security.HttpSecurityUtils;
import io.smallrye.mutiny.Uni;
import io.vertx.ext.web.RoutingContext;

/**
 * The sign-in form's check: the operator's own name and password, against the users file (PBKDF2-HMAC-SHA256). A
 * name or an address with too many failures is refused without looking at the password until its lock lifts
 * ({@link SignInThrottle}); the form then says how long ({@link #LOCKED}). A sign-in that passes opens a server-side
 * session ({@link Sessions}): the identity's principal is the session's id (what the form mechanism writes, encrypted,
 * into the session cookie), the operator's name an attribute ({@link Operator#NAME_ATTRIBUTE}).
 */
@ApplicationScoped
public class PasswordIdentityProvider implements IdentityProvider<UsernamePasswordAuthenticationRequest> {
    private static final Logger AUDIT = Logger.getLogger("console.audit");
    /** The routing context's attribute: seconds until a locked sign-in may be tried again. */
    public static final String LOCKED = "console.sign-in.locked-seconds";

    private final Optional<Users> users;
    private final SignInThrottle throttle;
    private final Sessions sessions;

    public PasswordIdentityProvider(LocalUsers users, SignInThrottle throttle, Sessions sessions) {
        this.users = users.users();
        this.throttle = throttle;
        this.sessions = sessions;
    }

    @Override
    public Class<UsernamePasswordAuthenticationRequest> getRequestType() {
        return UsernamePasswordAuthenticationRequest.class;
    }

    @Override
    public Uni<SecurityIdentity> authenticate(UsernamePasswordAuthenticationRequest request,
            AuthenticationRequestContext context) {
        RoutingContext http = HttpSecurityUtils.getRoutingContextAttribute(request);
        String address = http == null || http.request().remoteAddress() == null
                ? null
                : http.request().remoteAddress().hostAddress();
        String name = request.getUsername();
        String shown = name != null && Users.NAME.matcher(name).matches() ? name : "(invalid name)";
        Optional<Duration> locked = throttle.locked(name, address);
        if (locked.isPresent()) {
            AUDIT.infof("sign-in refused for %s from %s: locked for %d s more after repeated failures", shown,
                    Operator.oneLine(address), locked.get().toSeconds());
            return refuse(http, locked);
        }
        return context.runBlocking(() -> {
            boolean valid = users.isPresent() && name != null && Users.NAME.matcher(name).matches()
                    && users.get().check(name, request.getPassword().getPassword());
            if (!valid) {
                Optional<Duration> now = throttle.failed(name, address);
                AUDIT.infof("sign-in refused for %s from %s%s", shown, Operator.oneLine(address),
                        now.map(d -> ": locked for " + d.toSeconds() + " s").orElse(""));
                refuse(http, now);
                throw new AuthenticationFailedException();
            }
            throttle.succeeded(name);
            Sessions.Session session = sessions.open(name);
            AUDIT.infof("operator=%s signed in with the users file", name);
            return QuarkusSecurityIdentity.builder().setPrincipal(new QuarkusPrincipal(session.id()))
                    .addAttribute(Operator.NAME_ATTRIBUTE, name).addAttribute(Operator.SESSION_ATTRIBUTE, session.id())
                    .addRole(Operator.ROLE).build();
        });
    }

    private static Uni<SecurityIdentity> refuse(RoutingContext http, Optional<Duration> locked) {
        if (http != null && locked.isPresent()) {
            http.put(LOCKED, Math.max(1, locked.get().toSeconds()));
        }
        return Uni.createFrom().failure(new AuthenticationFailedException());
    }
}
