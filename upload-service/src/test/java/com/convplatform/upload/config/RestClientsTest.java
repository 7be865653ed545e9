package com.convplatform.upload.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;

import org.junit.jupiter.api.Test;

import com.convplatform.testsupport.RestClientBeans;

import io.quarkus.test.junit.QuarkusTest;

/** Each REST client is built once, as a singleton, under a key of its own (test-support's RestClientBeans says why). */
@QuarkusTest
class RestClientsTest {
    @Test
    void everyRestClientIsOneSingletonOfItsOwnName() {
        assertEquals(Map.of("com.convplatform.upload.auth.Revocations$Source", "Singleton management-internal",
                "com.convplatform.upload.erasure.HookErasures$Api", "Singleton hook-erasures",
                "com.convplatform.upload.handoff.HookIntakeClient$HookIntake", "Singleton hook-intake"),
                RestClientBeans.clients());
    }
}
