package com.convplatform.management;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

import com.convplatform.crypto.testing.NativeImageRules;

/**
 * The service's classes and service-support's hold no {@code static final} Random: the native image build, which
 * initialises every class, would refuse it (crypto-common checks its own).
 */
class NativeImageRulesTest {
    @Test
    void noStaticFinalRandom() {
        assertEquals(List.of(),
                NativeImageRules.staticFinalRandoms(com.convplatform.management.signed.RequestLimits.class,
                        com.convplatform.support.ApiError.class));
    }
}
