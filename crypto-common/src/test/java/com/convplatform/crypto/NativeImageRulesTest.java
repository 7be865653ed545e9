package com.convplatform.crypto;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

import com.convplatform.crypto.testing.NativeImageRules;

/** crypto-common's main classes hold no {@code static final} Random (the services' own tests check theirs). */
class NativeImageRulesTest {
    @Test
    void noStaticFinalRandom() {
        assertEquals(List.of(), NativeImageRules.staticFinalRandoms(SecureRandoms.class));
    }

    /** The rule finds what it looks for: this test's own class holds one. */
    static final java.security.SecureRandom HELD = new java.security.SecureRandom();

    @Test
    void theRuleFindsAStaticFinalRandom() {
        assertEquals(true, NativeImageRules.staticFinalRandoms(NativeImageRulesTest.class)
                .contains(NativeImageRulesTest.class.getName() + ".HELD"));
    }
}
