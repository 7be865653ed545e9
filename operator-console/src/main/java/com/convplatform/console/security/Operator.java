package com.convplatform.console.security;

import jakarta.enterprise.context.RequestScoped;

import org.jboss.logging.Logger;

import io.quarkus.security.identity.SecurityIdentity;

/** The signed-in operator, and the audit log that names them with every action. */
@RequestScoped
public class Operator {
    /** The role every page needs: granted by the password form, or by the identity provider's role claim. */
    public static final String ROLE = "operator";
    private static final Logger AUDIT = Logger.getLogger("console.audit");

    private final SecurityIdentity identity;

    public Operator(SecurityIdentity identity) {
        this.identity = identity;
    }

    public String name() {
        return identity.isAnonymous() ? "anonymous" : identity.getPrincipal().getName();
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
