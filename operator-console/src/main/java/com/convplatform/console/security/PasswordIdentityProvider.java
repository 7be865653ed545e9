package com.convplatform.console.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.regex.Pattern;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import com.convplatform.console.ConsoleConfig;

import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.IdentityProvider;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.request.UsernamePasswordAuthenticationRequest;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.smallrye.mutiny.Uni;

/**
 * The sign-in form's check: the operator gives their own name (logged with every action) and the operators' shared
 * password ({@code console.password}), compared in constant time as SHA-256 digests. With no password configured
 * every sign-in is refused.
 */
@ApplicationScoped
public class PasswordIdentityProvider implements IdentityProvider<UsernamePasswordAuthenticationRequest> {
    private static final Logger AUDIT = Logger.getLogger("console.audit");
    /** A name that is safe to log as it is. */
    static final Pattern NAME = Pattern.compile("[A-Za-z0-9._@-]{1,64}");

    private final byte[] digest;

    public PasswordIdentityProvider(ConsoleConfig config) {
        this.digest = config.password().filter(p -> !p.isBlank()).map(PasswordIdentityProvider::sha256).orElse(null);
    }

    @Override
    public Class<UsernamePasswordAuthenticationRequest> getRequestType() {
        return UsernamePasswordAuthenticationRequest.class;
    }

    @Override
    public Uni<SecurityIdentity> authenticate(UsernamePasswordAuthenticationRequest request,
            AuthenticationRequestContext context) {
        String name = request.getUsername();
        boolean match = digest != null
                && MessageDigest.isEqual(digest, sha256(new String(request.getPassword().getPassword())));
        if (!match || name == null || !NAME.matcher(name).matches()) {
            AUDIT.infof("sign-in refused for %s",
                    name != null && NAME.matcher(name).matches() ? name : "(invalid name)");
            return Uni.createFrom().failure(new AuthenticationFailedException());
        }
        AUDIT.infof("operator=%s signed in with the password", name);
        return Uni.createFrom().item(QuarkusSecurityIdentity.builder().setPrincipal(new QuarkusPrincipal(name))
                .addRole(Operator.ROLE).build());
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
