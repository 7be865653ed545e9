package com.convplatform.hook.config;

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
        assertEquals(Map.of("com.convplatform.hook.delivery.AccountDirectory$Management", "Singleton management"),
                RestClientBeans.clients());
    }
}
