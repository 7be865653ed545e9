package com.convplatform.hook.delivery;

import java.time.Duration;

/**
 * What one attempt came to. {@code endpointFault} says whether the failure counts against the receiver's endpoint
 * (an error answer, a time-out, a refused connection, a refused address), as opposed to the platform's own trouble
 * (account lookup down), which never counts towards disabling an endpoint.
 */
public record Outcome(Integer statusCode, String error, long latencyMs, Duration retryAfter, boolean permanent,
        boolean endpointFault) {

    /** The receiver answered; 2xx is success, anything else an endpoint failure. */
    public static Outcome answered(int statusCode, Duration retryAfter) {
        boolean ok = statusCode >= 200 && statusCode < 300;
        String error = ok
                ? null
                : "HTTP " + statusCode + (statusCode >= 300 && statusCode < 400 ? " (redirects are not followed)" : "");
        return new Outcome(statusCode, error, 0, retryAfter, false, !ok);
    }

    /** No answer from the receiver, or its address refused: retried, and counted against the endpoint. */
    public static Outcome endpointFailed(String error) {
        return new Outcome(null, error, 0, null, false, true);
    }

    /** The platform could not attempt it (for example the account lookup failed): retried, not counted. */
    public static Outcome platformFailed(String error) {
        return new Outcome(null, error, 0, null, false, false);
    }

    /** It can never succeed (unknown account, unreadable payload): dead-lettered at once. */
    public static Outcome permanent(String error) {
        return new Outcome(null, error, 0, null, true, false);
    }

    /** This outcome of an attempt that took {@code ms} milliseconds. */
    public Outcome took(long ms) {
        return new Outcome(statusCode, error, ms, retryAfter, permanent, endpointFault);
    }

    public boolean delivered() {
        return statusCode != null && statusCode >= 200 && statusCode < 300;
    }
}
