package com.convplatform.console.security;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.HexFormat;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import jakarta.enterprise.context.RequestScoped;

import org.jboss.logging.Logger;

import com.convplatform.console.ConsoleConfig;
import com.convplatform.support.Sha256;

import io.quarkus.oidc.IdTokenCredential;
import io.quarkus.security.identity.SecurityIdentity;

/** The signed-in operator, and the audit log that names them with every action. */
@RequestScoped
public class Operator {
    /** The role every page needs: granted by the users file, or by the identity provider's role claim. */
    public static final String ROLE = "operator";
    /** The identity's attribute holding the operator's name (a users-file session; OIDC: the principal's name). */
    public static final String NAME_ATTRIBUTE = "console.operator";
    /** The identity's attribute holding the server-side session's id (users-file sign-in only). */
    public static final String SESSION_ATTRIBUTE = "console.session";
    private static final Logger AUDIT = Logger.getLogger("console.audit");

    private final SecurityIdentity identity;
    private final Sessions sessions;
    private final ConsoleConfig config;

    public Operator(SecurityIdentity identity, Sessions sessions, ConsoleConfig config) {
        this.identity = identity;
        this.sessions = sessions;
        this.config = config;
    }

    /** The signed-in identity's name: never anything typed on a page. */
    public String name() {
        if (identity.isAnonymous()) {
            return "anonymous";
        }
        String name = identity.getAttribute(NAME_ATTRIBUTE);
        return name != null ? name : identity.getPrincipal().getName();
    }

    /**
     * The name as the services take it in X-Operator, so that each action they record names its person: the name
     * itself, or for one they would not take (an identity provider's, with a space, an accent or over 64 characters)
     * its {@link #alias}; null when nobody is signed in.
     */
    public String headerValue() {
        if (identity.isAnonymous()) {
            return null;
        }
        String name = name();
        return Users.NAME.matcher(name).matches() ? name : alias(name);
    }

    /**
     * A name the services would not take, as one they do: its characters outside theirs as '_', at most 55 of them,
     * then '+' and the first 8 hex digits of the name's SHA-256 (so that two names alike there stay apart). The
     * console's sign-in line gives the alias beside the name.
     */
    public static String alias(String name) {
        String kept = name.replaceAll("[^A-Za-z0-9._@-]", "_");
        return kept.substring(0, Math.min(kept.length(), 55)) + "+" + HexFormat.of().formatHex(Sha256.of(name), 0, 4);
    }

    public String sessionId() {
        return identity.isAnonymous() ? null : identity.getAttribute(SESSION_ATTRIBUTE);
    }

    /**
     * This session's CSRF token: the server-side session's own (users file), or for an OpenID Connect session an
     * HMAC (with {@code console.session-key}) of its ID token, so that it changes with the session. Null without one.
     */
    public String csrfToken() {
        String session = sessionId();
        if (session != null) {
            return sessions.get(session).map(Sessions.Session::csrfToken).orElse(null);
        }
        IdTokenCredential id = identity.isAnonymous() ? null : identity.getCredential(IdTokenCredential.class);
        if (id == null || id.getToken() == null) {
            return null;
        }
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(("csrf:" + config.sessionKey().orElse("")).getBytes(StandardCharsets.UTF_8),
                    "HmacSHA256"));
            return Base64.getUrlEncoder().withoutPadding()
                    .encodeToString(mac.doFinal(id.getToken().getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * One line per action: who did what to which object, and how it ended. The target and outcome carry what the
     * operator typed (a reason, an id from the path), and the name an identity provider's token gave: their control
     * characters are escaped, so that none of them can start a line of its own in a plain-text log.
     */
    public void audit(String action, String target, String outcome) {
        AUDIT.infof("operator=%s action=%s target=%s outcome=%s", oneLine(name()), action, oneLine(target),
                oneLine(outcome));
    }

    /**
     * {@code value} with its control characters, and the Unicode line and paragraph separators, written as their code
     * (a newline becomes the six characters backslash, u, 000a).
     */
    public static String oneLine(String value) {
        if (value == null) {
            return null;
        }
        StringBuilder out = new StringBuilder(value.length());
        value.codePoints().forEach(c -> {
            if (Character.isISOControl(c) || c == 0x2028 || c == 0x2029) {
                out.append(String.format("\\u%04x", c));
            } else {
                out.appendCodePoint(c);
            }
        });
        return out.toString();
    }
}
