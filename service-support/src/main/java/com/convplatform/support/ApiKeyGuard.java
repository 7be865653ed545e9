package com.convplatform.support;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;

/**
 * Bearer-key checks for the operator and internal APIs of the three services: the key is compared in constant time,
 * and with no key configured the API refuses every call ({@code API_DISABLED}).
 */
public final class ApiKeyGuard {
    private ApiKeyGuard() {
    }

    public static void require(Optional<String> configured, String authorization, String which) {
        if (configured.isEmpty() || configured.get().isBlank()) {
            throw new ApiException(401, "API_DISABLED",
                    "The " + which + " API is disabled: no key is configured on this service");
        }
        String presented = authorization != null && authorization.startsWith("Bearer ")
                ? authorization.substring("Bearer ".length())
                : "";
        byte[] a = configured.get().getBytes(StandardCharsets.UTF_8);
        byte[] b = presented.getBytes(StandardCharsets.UTF_8);
        if (!MessageDigest.isEqual(a, b)) {
            throw new ApiException(401, "UNAUTHORIZED",
                    "Send the " + which + " key as 'Authorization: Bearer <key>'");
        }
    }
}
