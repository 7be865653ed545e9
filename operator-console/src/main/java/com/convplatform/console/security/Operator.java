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

    /** One line per action: who did what to which object, and how it ended. */
    public void audit(String action, String target, String outcome) {
        AUDIT.infof("operator=%s action=%s target=%s outcome=%s", name(), action, target, outcome);
    }
}
