package com.convplatform.console;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;

import org.junit.jupiter.api.Test;

import com.convplatform.testsupport.RestClientBeans;

import io.quarkus.test.junit.QuarkusTest;

/** Each REST client is built once, as a singleton (test-support's RestClientBeans says why). */
@QuarkusTest
class RestClientsTest {
    @Test
    void everyRestClientIsOneSingleton() {
        assertEquals(Map.of("com.convplatform.console.api.HookApi", "Singleton",
                "com.convplatform.console.api.ManagementApi", "Singleton",
                "com.convplatform.console.api.UploadApi", "Singleton"), RestClientBeans.scopes());
    }
}
