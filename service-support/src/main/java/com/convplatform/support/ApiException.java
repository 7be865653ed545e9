package com.convplatform.support;

/**
 * A refusal with an HTTP status, a stable code and a sentence a person can act on. Each service's error mapper turns
 * it into its JSON error body.
 */
public class ApiException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String code;
    private final int retryAfterSeconds;

    public ApiException(int status, String code, String message) {
        this(status, code, message, 0);
    }

    /** A refusal answered with {@code Retry-After: retryAfterSeconds} (a 429 or 503 the caller may try again). */
    public ApiException(int status, String code, String message, int retryAfterSeconds) {
        super(message);
        this.status = status;
        this.code = code;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /** Seconds after which the caller may try again; 0 when there is no such advice. */
    public int retryAfterSeconds() {
        return retryAfterSeconds;
    }

    public int status() {
        return status;
    }

    public String code() {
        return code;
    }
}
