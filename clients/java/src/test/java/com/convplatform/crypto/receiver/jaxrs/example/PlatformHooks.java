package com.convplatform.crypto.receiver.jaxrs.example;

import jakarta.ws.rs.ext.Provider;

import com.convplatform.crypto.hook.HookVerifier;
import com.convplatform.crypto.receiver.jaxrs.HookVerificationFilter;
import com.convplatform.crypto.receiver.jaxrs.VerifiedHook;

/** The Java receiver of docs/integrators.md, compiled by the build: verifies the hooks of @VerifiedHook endpoints. */
@Provider
@VerifiedHook
public class PlatformHooks extends HookVerificationFilter {
    public PlatformHooks() {
        super(HookVerifier.builder().platformDomains("platform.example").build());
    }
}
