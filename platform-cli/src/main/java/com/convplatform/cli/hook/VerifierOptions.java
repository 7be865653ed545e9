package com.convplatform.cli.hook;

import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

import com.convplatform.cli.support.CliException;
import com.convplatform.cli.support.Inputs;
import com.convplatform.crypto.chain.TrustAnchors;
import com.convplatform.crypto.fetch.CertificateFetcher;
import com.convplatform.crypto.fetch.HostOverrides;
import com.convplatform.crypto.fetch.TlsTrust;
import com.convplatform.crypto.hook.HookVerifier;

import picocli.CommandLine.Option;

/** The options that set up crypto-common's {@link HookVerifier}: shared by {@code verify-hook} and {@code receive-hooks}. */
public final class VerifierOptions {
    @Option(names = "--domain", required = true, paramLabel = "DOMAIN", description = "A platform domain the certificate host must be a subdomain of; repeat for production and"
            + " staging.")
    List<String> domains = new ArrayList<>();

    @Option(names = "--trust", paramLabel = "FILE", description = "Extra trusted root certificates (PEM), added to this JVM's roots, for the download's TLS"
            + " and for the signing chain; repeatable.")
    List<Path> trust = new ArrayList<>();

    @Option(names = "--resolve", paramLabel = "HOST=ADDRESS:PORT", description = "Connect to ADDRESS:PORT for HOST instead of resolving it (like curl --resolve); the URL"
            + " rules and TLS name checks still apply to HOST. Repeatable.")
    List<String> resolve = new ArrayList<>();

    /** The verifier these options describe; {@link CliException} (usage) for a bad option. */
    HookVerifier build(Clock clock) {
        List<X509Certificate> extraRoots = Inputs.readTrustRoots(trust, "--trust");
        HostOverrides overrides;
        try {
            overrides = HostOverrides.parse(resolve);
        } catch (IllegalArgumentException e) {
            throw CliException.usage("--resolve: " + e.getMessage()
                    + "; write it like hooks.platform.example=127.0.0.1:8443", e);
        }
        try {
            return HookVerifier.builder().platformDomains(domains)
                    .trustAnchors(TrustAnchors.jdkDefaults().plus(extraRoots))
                    .fetcher(CertificateFetcher.withDefaults(TlsTrust.withExtraRoots(extraRoots), overrides))
                    .clock(clock).build();
        } catch (IllegalArgumentException e) {
            throw CliException.usage("--domain: " + e.getMessage() + "; pass a domain such as platform.example", e);
        }
    }
}
