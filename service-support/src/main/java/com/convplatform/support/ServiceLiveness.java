package com.convplatform.support;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;

/** Liveness: the service is up and serving requests. Readiness adds the checks of the storage it uses. */
@Liveness
@ApplicationScoped
public class ServiceLiveness implements HealthCheck {
    private final String name;

    public ServiceLiveness(@ConfigProperty(name = "quarkus.application.name") String name) {
        this.name = name;
    }

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.up(name);
    }
}
