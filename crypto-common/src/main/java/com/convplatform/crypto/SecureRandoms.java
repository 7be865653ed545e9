package com.convplatform.crypto;

import java.security.SecureRandom;

/**
 * One {@link SecureRandom} for the process, made on first use. Not a {@code static final} field: Quarkus initialises
 * classes while it builds a native image, and GraalVM refuses a {@code Random} found in the image heap (its seed would
 * be the same in every process started from the image).
 */
public final class SecureRandoms {
    private static volatile SecureRandom shared;

    private SecureRandoms() {
    }

    public static SecureRandom shared() {
        SecureRandom random = shared;
        if (random == null) {
            shared = random = new SecureRandom(); // two threads may each make one: harmless
        }
        return random;
    }
}
