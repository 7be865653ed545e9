package com.convplatform.upload.auth;

import java.security.PublicKey;

import com.convplatform.support.BoundedCache;

/**
 * Tokens whose signature has verified, each with the key that verified it. A signature check is a pure function of
 * the signed bytes, the signature and the key, so a token seen again with the same key needs no second check: a
 * client sends the same token with every upload until it expires. Only the signature is remembered; every other
 * check (expiry, issuer, audience, client) runs on every request. Bounded: cleared when full.
 */
final class VerifiedSignatures {
    /** Verifies one signature. */
    interface Check {
        boolean verifies();
    }

    private final BoundedCache<String, PublicKey> verified;

    VerifiedSignatures(int max) {
        this.verified = new BoundedCache<>(max);
    }

    /** Whether {@code token} is signed by {@code key}: remembered, or {@code check} run and a success remembered. */
    boolean verifies(String token, PublicKey key, Check check) {
        if (key.equals(verified.get(token))) {
            return true;
        }
        if (!check.verifies()) {
            return false;
        }
        verified.put(token, key);
        return true;
    }

    int size() {
        return verified.size();
    }
}
