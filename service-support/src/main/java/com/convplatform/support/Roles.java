package com.convplatform.support;

/** The roles that the configured bearer keys grant ({@link ApiKeyMechanism}). */
public final class Roles {
    /** The operator API ({@code /admin/v1}). */
    public static final String OPERATOR = "operator";
    /** The APIs the services call on each other ({@code /internal/v1}). */
    public static final String INTERNAL = "internal";

    private Roles() {
    }
}
