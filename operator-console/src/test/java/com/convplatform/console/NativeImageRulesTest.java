package com.convplatform.console;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

import com.convplatform.crypto.testing.NativeImageRules;

/**
 * The console's classes hold no {@code static final} Random: the native image build, which initialises every class,
 * would refuse it (the services and crypto-common check their own).
 */
class NativeImageRulesTest {
    @Test
    void noStaticFinalRandom() {
        assertEquals(List.of(), NativeImageRules.staticFinalRandoms(ConsoleConfig.class));
    }
}
