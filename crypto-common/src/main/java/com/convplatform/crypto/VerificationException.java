package com.convplatform.crypto;

import java.util.Objects;

/**
 * The one exception every check of this library throws. It carries a stable {@link FailureCode} and a message a
 * person can act on; it never carries secrets or key material.
 */
public final class VerificationException extends Exception {
    private static final long serialVersionUID = 1L;

    private final FailureCode code;

    public VerificationException(FailureCode code, String message) {
        super(message);
        this.code = Objects.requireNonNull(code, "code");
    }

    public VerificationException(FailureCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = Objects.requireNonNull(code, "code");
    }

    /** The stable, machine-readable reason. */
    public FailureCode code() {
        return code;
    }

    @Override
    public String toString() {
        return code + ": " + getMessage();
    }
}
