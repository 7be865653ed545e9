package com.convplatform.console;

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
        assertEquals(Map.of("com.convplatform.console.api.HookApi", "Singleton hook",
                "com.convplatform.console.api.ManagementApi", "Singleton management",
                "com.convplatform.console.api.UploadApi", "Singleton upload"), RestClientBeans.clients());
    }
}
