package com.convplatform.crypto.receiver.jaxrs;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import jakarta.ws.rs.NameBinding;

/**
 * Binds {@link HookVerificationFilter} to the resource methods (or classes) that receive hooks: annotate the hook
 * endpoint and a filter subclass registered as a provider; other endpoints are left alone.
 */
@NameBinding
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface VerifiedHook {
}
