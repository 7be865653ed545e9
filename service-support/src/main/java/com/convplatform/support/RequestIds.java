package com.convplatform.support;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;

import org.jboss.logging.MDC;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;

/**
 * The request id: taken from the caller's {@value #HEADER} (another service of the platform, or a proxy) when it
 * is a plain token of at most 64 characters, otherwise made up; logged as {@code request_id} (MDC, a field of the
 * JSON log) while the request runs, returned in the answer's {@value #HEADER}, and sent on with calls to the other
 * services.
 */
public class RequestIds {
    public static final String HEADER = "X-Request-Id";
    public static final String MDC_KEY = "request_id";
    private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9._:-]{1,64}");

    /**
     * The caller's id when it is safe to log and pass on, or a new one: a random (version 4) UUID from a
     * non-cryptographic generator, since an id only has to be unique (UUID.randomUUID's SecureRandom read was about 1 %
     * of management-service's CPU per token).
     */
    public static String accept(String offered) {
        if (offered != null && SAFE.matcher(offered).matches()) {
            return offered;
        }
        ThreadLocalRandom random = ThreadLocalRandom.current();
        return new UUID(random.nextLong() & ~0xF000L | 0x4000L, random.nextLong() & ~(3L << 62) | 1L << 63)
                .toString();
    }

    /** The id of the request this thread serves, if any. */
    public static String current() {
        Object id = MDC.get(MDC_KEY);
        return id == null ? null : id.toString();
    }

    @ServerRequestFilter(preMatching = true)
    public void onRequest(ContainerRequestContext request) {
        String id = accept(request.getHeaderString(HEADER));
        request.setProperty(MDC_KEY, id);
        MDC.put(MDC_KEY, id);
    }

    @ServerResponseFilter
    public void onResponse(ContainerRequestContext request, ContainerResponseContext response) {
        Object id = request.getProperty(MDC_KEY);
        if (id != null) {
            response.getHeaders().putSingle(HEADER, id);
        }
        MDC.remove(MDC_KEY);
    }
}
