package com.convplatform.crypto.receiver.jaxrs;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Objects;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import com.convplatform.crypto.hook.HookHeaders;
import com.convplatform.crypto.hook.HookVerifier;
import com.convplatform.crypto.receiver.HookReceiver;

/**
 * Verifies every hook request before its resource sees it (spec 5.2): reads the raw body, checks it with a
 * {@link HookVerifier} through {@link HookReceiver}, and either aborts with 400 and
 * {@code {"error_code": "<FailureCode>", "error_message": "..."}} (413 {@code BODY_TOO_LARGE} over the size limit), or
 * puts the exact bytes back as the entity stream, so the resource can read the body (as a String, a byte[] or a bound
 * object) as if nothing had touched it. The verified certificate URL, chain and signature_timestamp are in the
 * request property {@link #VERIFIED}.
 *
 * <pre>{@code
 * @Provider @VerifiedHook
 * public class PlatformHooks extends HookVerificationFilter {
 *     public PlatformHooks() {
 *         super(HookVerifier.builder().platformDomains("platform.example").build());
 *     }
 * }
 *
 * @POST @Path("/hooks") @VerifiedHook
 * public void hook(String body) { ... }   // only verified hooks get here
 * }</pre>
 */
@Priority(Priorities.AUTHENTICATION)
public class HookVerificationFilter implements ContainerRequestFilter {
    /** The request property holding the {@link HookVerifier.Verified} of an accepted hook. */
    public static final String VERIFIED = HookVerifier.Verified.class.getName();

    private final HookReceiver receiver;

    /** A filter verifying with {@code verifier} (keep one verifier per application: it caches the certificate). */
    public HookVerificationFilter(HookVerifier verifier) {
        this(new HookReceiver(verifier));
    }

    /** A filter over a receiver, for another body size limit. */
    public HookVerificationFilter(HookReceiver receiver) {
        this.receiver = Objects.requireNonNull(receiver, "receiver");
    }

    @Override
    public void filter(ContainerRequestContext request) throws IOException {
        HookReceiver.Outcome outcome = receiver.receive(request.getHeaderString(HookHeaders.SIGNATURE),
                request.getHeaderString(HookHeaders.CERTIFICATE_URL), request.getEntityStream());
        if (outcome instanceof HookReceiver.Accepted accepted) {
            request.setEntityStream(new ByteArrayInputStream(accepted.body()));
            request.setProperty(VERIFIED, accepted.verified());
        } else if (outcome instanceof HookReceiver.Rejected rejected) {
            request.abortWith(Response.status(rejected.status()).type(MediaType.APPLICATION_JSON_TYPE)
                    .entity(rejected.jsonBody()).build());
        }
    }
}
