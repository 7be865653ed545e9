package com.convplatform.management;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import com.convplatform.crypto.testing.NativeImageRules;

import io.quarkus.arc.Arc;
import io.quarkus.arc.ClientProxy;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Every bounded Caffeine cache the service's beans hold is of a class a native image has: Caffeine loads it by name, so
 * a cache built another way (a weigher, an expiry) fails there with "IllegalStateException: SSMW" and nowhere else.
 */
@QuarkusTest
class CachesInTheNativeImageTest {
    private static final List<String> HOLDERS = List.of("com.convplatform.management.account.DirectReads",
            "com.convplatform.management.account.AccountService",
            "com.convplatform.management.account.CertificateService",
            "com.convplatform.management.account.ClientService", "com.convplatform.management.signed.RequestLimits");

    @Test
    void everyCacheClassIsRegistered() throws Exception {
        List<Class<?>> classes = new ArrayList<>();
        List<Object> beans = new ArrayList<>();
        for (String name : HOLDERS) {
            Class<?> type = Class.forName(name, true, Thread.currentThread().getContextClassLoader());
            classes.add(type);
            beans.add(ClientProxy.unwrap(Arc.container().instance(type).get()));
        }
        assertEquals(List.of(), NativeImageRules.unregisteredCaches(classes, beans.toArray()));
    }
}
