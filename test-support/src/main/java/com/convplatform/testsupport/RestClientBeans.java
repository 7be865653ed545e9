package com.convplatform.testsupport;

import java.util.Map;
import java.util.TreeMap;

import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.spi.Bean;

import io.quarkus.arc.Arc;

/**
 * The REST clients of the service under test, by the interface each implements, with the simple name of its scope. The
 * services make every REST client a singleton ({@code quarkus.rest-client.scope}): one of a normal scope is built
 * twice, once more for its client proxy, and the second HTTP client's metrics logged "This Gauge has been already
 * registered" at the client's first call.
 */
public final class RestClientBeans {
    private static final String QUALIFIER = "org.eclipse.microprofile.rest.client.inject.RestClient";
    private static final String WRAPPER = "$$CDIWrapper";

    private RestClientBeans() {
    }

    /** Each REST client's interface (its binary name) and the simple name of its scope. */
    public static Map<String, String> scopes() {
        Map<String, String> scopes = new TreeMap<>();
        for (Bean<?> bean : Arc.container().beanManager().getBeans(Object.class, Any.Literal.INSTANCE)) {
            if (bean.getQualifiers().stream().anyMatch(q -> q.annotationType().getName().equals(QUALIFIER))) {
                String name = bean.getBeanClass().getName();
                scopes.put(name.endsWith(WRAPPER) ? name.substring(0, name.length() - WRAPPER.length()) : name,
                        bean.getScope().getSimpleName());
            }
        }
        return scopes;
    }
}
