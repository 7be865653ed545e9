package com.convplatform.upload.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

class VerifiedSignaturesTest {
    static PublicKey key() throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(256);
        return g.generateKeyPair().getPublic();
    }

    @Test
    void aTokenSeenAgainWithTheSameKeyIsNotCheckedAgain() throws Exception {
        VerifiedSignatures v = new VerifiedSignatures(10);
        PublicKey k = key();
        AtomicInteger checks = new AtomicInteger();
        assertTrue(v.verifies("a.b.c", k, () -> checks.incrementAndGet() > 0));
        assertTrue(v.verifies("a.b.c", k, () -> checks.incrementAndGet() > 0));
        assertEquals(1, checks.get());
    }

    @Test
    void anotherKeyOrAnotherTokenIsCheckedAndAFailureIsNeverRemembered() throws Exception {
        VerifiedSignatures v = new VerifiedSignatures(10);
        PublicKey k = key();
        PublicKey other = key();
        AtomicInteger checks = new AtomicInteger();
        assertTrue(v.verifies("a.b.c", k, () -> checks.incrementAndGet() > 0));
        assertFalse(v.verifies("a.b.c", other, () -> checks.incrementAndGet() < 0), "the same token, another key");
        assertFalse(v.verifies("a.b.d", k, () -> checks.incrementAndGet() < 0), "another signature");
        assertFalse(v.verifies("a.b.d", k, () -> checks.incrementAndGet() < 0), "a failure is checked again");
        assertEquals(4, checks.get());
    }

    @Test
    void itHoldsAtMostItsBound() throws Exception {
        VerifiedSignatures v = new VerifiedSignatures(3);
        PublicKey k = key();
        for (int i = 0; i < 10; i++) {
            assertTrue(v.verifies("t" + i, k, () -> true));
            assertTrue(v.size() <= 3);
        }
    }
}
