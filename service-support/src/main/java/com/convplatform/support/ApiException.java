package com.convplatform.support;

/**
 * A refusal with an HTTP status, a stable code and a sentence a person can act on. Each service's error mapper turns
 * it into its JSON error body.
 */
public class ApiException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String code;

    public ApiException(int status, String code, String message) {
        super(message);
        this.status = status;
        this.code = code;
    }

    public int status() {
        return status;
    }

    public String code() {
        return code;
    }
}
