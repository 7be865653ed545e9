package com.convplatform.hook.signing;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;

/** The signing certificate's notAfter as a gauge, registered at start (which loads the signing identity then). */
@ApplicationScoped
class SigningCertificateGauge {
    void register(@Observes StartupEvent event, SigningIdentity identity, MeterRegistry metrics) {
        Gauge.builder("hook.signing.certificate.not_after.timestamp", identity.document(),
                d -> d.notAfter().getEpochSecond())
                .baseUnit("seconds")
                .description("notAfter of the certificate hooks are signed with (the first of hook.signing.chain-file)")
                .register(metrics);
    }
}
