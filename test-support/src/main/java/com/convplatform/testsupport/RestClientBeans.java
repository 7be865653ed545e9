package com.convplatform.testsupport;

import java.lang.annotation.Annotation;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.spi.Bean;

import io.quarkus.arc.Arc;

/**
 * The REST clients of the service under test, by the interface each implements: the simple name of its scope and its
 * configuration key. Every REST client is a singleton ({@code quarkus.rest-client.scope}) with a key of its own: one of
 * a normal scope is built twice, once more for its client proxy, and two clients of one key build two HTTP clients of
 * one name; either way the second HTTP client's metrics logged "This Gauge has been already registered".
 */
public final class RestClientBeans {
    private static final String QUALIFIER = "org.eclipse.microprofile.rest.client.inject.RestClient";
    private static final String WRAPPER = "$$CDIWrapper";
    private static final String REGISTER = "org.eclipse.microprofile.rest.client.inject.RegisterRestClient";

    private RestClientBeans() {
    }

    /** Each REST client's interface (its binary name), as "scope configKey": e.g. "Singleton hook-intake". */
    public static Map<String, String> clients() {
        Map<String, String> clients = new TreeMap<>();
        for (Bean<?> bean : Arc.container().beanManager().getBeans(Object.class, Any.Literal.INSTANCE)) {
            if (bean.getQualifiers().stream().anyMatch(q -> q.annotationType().getName().equals(QUALIFIER))) {
                String name = bean.getBeanClass().getName();
                Class<?> api = Arrays.stream(bean.getBeanClass().getInterfaces())
                        .filter(i -> name.equals(i.getName() + WRAPPER)).findFirst().orElseThrow();
                clients.put(api.getName(), bean.getScope().getSimpleName() + " " + configKey(api));
            }
        }
        return clients;
    }

    private static String configKey(Class<?> api) {
        for (Annotation a : api.getAnnotations()) {
            if (a.annotationType().getName().equals(REGISTER)) {
                try {
                    return (String) a.annotationType().getMethod("configKey").invoke(a);
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return "";
    }
}
