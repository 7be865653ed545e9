package com.convplatform.crypto.chain;

import java.security.cert.CertPathValidatorException;

import com.convplatform.crypto.FailureCode;

/**
 * A refusal by one of our own path rules ({@link PathRules}, {@link NameConstraintRules}), thrown inside the JDK's
 * PKIX code so that its path builder treats the path as invalid and tries another. {@link ChainValidator} turns it
 * back into a {@link com.convplatform.crypto.VerificationException} with this code and message.
 */
final class RuleViolation extends CertPathValidatorException {
    private static final long serialVersionUID = 1L;

    private final transient FailureCode code;
    private final boolean complete;

    /** A violation by the certificate being checked; the validator prefixes which certificate it is. */
    RuleViolation(FailureCode code, String what) {
        this(code, what, false);
    }

    /**
     * @param complete the message already names what failed (e.g. the trusted root) and is used as it is
     */
    RuleViolation(FailureCode code, String message, boolean complete) {
        super(message);
        this.code = code;
        this.complete = complete;
    }

    FailureCode code() {
        return code;
    }

    boolean complete() {
        return complete;
    }
}
