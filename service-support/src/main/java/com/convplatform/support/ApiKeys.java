package com.convplatform.support;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The bearer keys a service is configured with, each opening one role's API; each service produces one from its own
 * settings ({@code *.admin.api-key}, {@code *.internal.api-key}). A role with no key (unset or blank) is closed:
 * nothing can obtain it. Keys are held as SHA-256 digests and compared in constant time.
 */
public final class ApiKeys {
    private final Map<String, byte[]> digests = new LinkedHashMap<>();
    private final Map<String, String> settings = new LinkedHashMap<>();
    private final Map<String, ApiException> refusals = new LinkedHashMap<>();
    private final MessageDigest sha256 = sha256();

    private ApiKeys() {
    }

    /** Starts an empty set; add one key per role with {@link #with}. */
    public static ApiKeys of() {
        return new ApiKeys();
    }

    /** Adds the key that opens {@code role}'s API; {@code setting} is the property that holds it, named in refusals. */
    public ApiKeys with(String role, String setting, Optional<String> key) {
        settings.put(role, setting);
        key.filter(k -> !k.isBlank()).ifPresent(k -> digests.put(role, digest(k)));
        return this;
    }

    /** The answer to a call without credentials at an endpoint of a role no key grants (a service's token role). */
    public ApiKeys refusing(String role, ApiException refusal) {
        refusals.put(role, refusal);
        return this;
    }

    /** The refusal named for {@code role} by {@link #refusing}, or null. */
    ApiException refusal(String role) {
        return refusals.get(role);
    }

    /** The roles whose key equals {@code presented} (each key compared in constant time, none skipped). */
    List<String> rolesOf(String presented) {
        byte[] offered = digest(presented);
        return digests.entrySet().stream().filter(e -> MessageDigest.isEqual(e.getValue(), offered))
                .map(Map.Entry::getKey).toList();
    }

    /** Whether a key is configured for {@code role}. */
    public boolean open(String role) {
        return digests.containsKey(role);
    }

    /** The property that holds {@code role}'s key, or null when the role is not one of this service's. */
    public String setting(String role) {
        return settings.get(role);
    }

    /**
     * A copy of this set's SHA-256 instance (made at run time, never in a native image's heap): every bearer a service
     * takes is digested here, and looking the algorithm up among the providers each time was 0.7 % of
     * upload-service's samples (JFR).
     */
    private byte[] digest(String key) {
        try {
            return ((MessageDigest) sha256.clone()).digest(key.getBytes(StandardCharsets.UTF_8));
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException(e);
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
