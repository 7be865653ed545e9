package com.convplatform.hook.config;

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
        assertEquals(Map.of("com.convplatform.hook.delivery.AccountDirectory$Management", "Singleton"),
                RestClientBeans.scopes());
    }
}
