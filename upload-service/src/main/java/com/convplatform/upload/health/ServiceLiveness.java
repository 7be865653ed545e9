package com.convplatform.upload.health;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;

/** Liveness: the application is up and serving requests. Readiness adds the checks of the storage it uses. */
@Liveness
@ApplicationScoped
public class ServiceLiveness implements HealthCheck {
    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.up("upload-service");
    }
}
