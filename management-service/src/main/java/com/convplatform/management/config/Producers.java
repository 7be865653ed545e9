package com.convplatform.management.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.chain.TrustAnchors;
import com.convplatform.crypto.fetch.CertificateFetcher;
import com.convplatform.crypto.fetch.HostOverrides;
import com.convplatform.crypto.fetch.TlsTrust;
import com.convplatform.crypto.management.ManagementRequestVerifier;
import com.convplatform.crypto.net.OutboundAddresses;
import com.convplatform.crypto.pem.Pem;
import com.convplatform.management.signed.RequestLimits;
import com.convplatform.support.ApiKeys;
import com.convplatform.support.Roles;
import com.convplatform.support.Workers;

import io.quarkus.arc.DefaultBean;

public class Producers {
    @Produces
    @Singleton
    ApiKeys apiKeys(ManagementConfig config) {
        return ApiKeys.of().with(Roles.OPERATOR, "management.admin.api-key", config.admin().apiKey())
                .with(Roles.INTERNAL, "management.internal.api-key", config.internal().apiKey());
    }

    /** The system's resolver behind the chain download's outbound-address guard; the tests replace it. */
    @Produces
    @Singleton
    @DefaultBean
    OutboundAddresses.Resolver resolver() {
        return OutboundAddresses.SYSTEM;
    }

    @Produces
    @Singleton
    ManagementRequestVerifier verifier(ManagementConfig config, Clock clock, OutboundAddresses.Resolver resolver,
            RequestLimits limits) {
        var fetch = config.certFetch();
        List<X509Certificate> fetchTrust = fetch.trustStore().map(Producers::readPem).orElse(List.of());
        List<X509Certificate> extraRoots = config.trustAnchors().map(Producers::readPem).orElse(List.of());
        HostOverrides overrides = HostOverrides.parse(fetch.resolve().orElse(List.of()));
        CertificateFetcher fetcher = new CertificateFetcher(TlsTrust.withExtraRoots(fetchTrust),
                fetch.connectTimeout(), fetch.totalTimeout(), fetch.maxBytes(), overrides,
                OutboundAddresses.of(resolver, fetch.allowPrivateNetworks()), fetch.perHost());
        return ManagementRequestVerifier.builder().trustAnchors(TrustAnchors.jdkDefaults().plus(extraRoots))
                .fetcher(fetcher).clock(clock).tolerance(Duration.ofSeconds(config.timestampToleranceSeconds()))
                .cacheSize(fetch.cacheSize()).cacheMaxAge(fetch.cacheMaxAge()).downloadGate(limits::checkDownload)
                .failureMemory(fetch.failureMemory())
                .beforeLoad(() -> Workers.requireBlockingAllowed("loading a certificate chain")).build();
    }

    static List<X509Certificate> readPem(String file) {
        try {
            return Pem.parseCertificates(Files.readAllBytes(Paths.get(file)), 1024 * 1024);
        } catch (IOException | VerificationException e) {
            throw new IllegalStateException("Cannot read the PEM certificates in " + file + ": " + e.getMessage(), e);
        }
    }
}
