package com.convplatform.console.security;

import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Named;

/**
 * What every form's hidden field holds ({@code {#csrf /}}, templates/tags/csrf.html): the session's own CSRF token
 * ({@link Operator#csrfToken}), checked on every post by {@link CsrfRefusal}. A token of another session is refused.
 */
@Named("csrf")
@RequestScoped
public class Csrf {
    public static final String FIELD = "csrf-token";

    private final Operator operator;

    public Csrf(Operator operator) {
        this.operator = operator;
    }

    public String getParameterName() {
        return FIELD;
    }

    public String getToken() {
        String token = operator.csrfToken();
        return token == null ? "" : token;
    }
}
