package com.convplatform.cli.hook;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import com.convplatform.cli.PlatformCli;
import com.convplatform.cli.support.CliException;
import com.convplatform.cli.support.ExitCodes;
import com.convplatform.cli.support.Hints;
import com.convplatform.cli.support.Inputs;
import com.convplatform.cli.support.InstantConverter;
import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.chain.TrustAnchors;
import com.convplatform.crypto.fetch.CertificateFetcher;
import com.convplatform.crypto.fetch.HostOverrides;
import com.convplatform.crypto.fetch.TlsTrust;
import com.convplatform.crypto.hook.HookVerifier;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code verify-hook}: what an integrator's receiver does with a hook (spec 5.2), by crypto-common's
 * {@link HookVerifier}: URL rule, certificate download, chain and SANs, SHA256withRSA over the raw body, and the
 * {@code signature_timestamp} window.
 */
@Command(name = "verify-hook", mixinStandardHelpOptions = true, description = {
        "Verify a hook request as a receiver must: certificate URL, certificate download, chain and"
                + " name, signature over the raw body, signature_timestamp within 120 s.",
        "Prints VERIFIED and a summary, or NOT VERIFIED <FAILURE_CODE>: <reason> with the fix. Exit 0 or 1."})
public final class VerifyHookCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--body", required = true, paramLabel = "FILE", description = "The raw body exactly as received ('-' reads standard input).")
    Path body;

    @Option(names = "--signature", required = true, paramLabel = "S", description = "The 'signature' header value.")
    String signature;

    @Option(names = "--certificate-url", required = true, paramLabel = "URL", description = "The 'signature-certificate-url' header value.")
    String certificateUrl;

    @Option(names = "--domain", required = true, paramLabel = "DOMAIN", description = "A platform domain the certificate host must be a subdomain of; repeat for production and"
            + " staging.")
    List<String> domains = new ArrayList<>();

    @Option(names = "--trust", paramLabel = "FILE", description = "Extra trusted root certificates (PEM), added to this JVM's roots, for the download's TLS"
            + " and for the signing chain; repeatable.")
    List<Path> trust = new ArrayList<>();

    @Option(names = "--resolve", paramLabel = "HOST=ADDRESS:PORT", description = "Connect to ADDRESS:PORT for HOST instead of resolving it (like curl --resolve); the URL"
            + " rules and TLS name checks still apply to HOST. Repeatable.")
    List<String> resolve = new ArrayList<>();

    @Option(names = "--at", paramLabel = "INSTANT", converter = InstantConverter.class, description = "Verify as of this instant (certificate validity and the 120 s window), to replay a"
            + " captured hook; the download's TLS still uses the real time.")
    Instant at;

    @Override
    public Integer call() {
        PlatformCli root = PlatformCli.root(spec);
        PrintWriter out = spec.commandLine().getOut();
        byte[] raw = Inputs.readBytes(body, "--body", Inputs.MAX_BODY_BYTES, root.stdin());
        List<X509Certificate> extraRoots = Inputs.readTrustRoots(trust, "--trust");
        HostOverrides overrides;
        try {
            overrides = HostOverrides.parse(resolve);
        } catch (IllegalArgumentException e) {
            throw CliException.usage("--resolve: " + e.getMessage()
                    + "; write it like hooks.platform.example=127.0.0.1:8443", e);
        }
        Clock clock = at != null ? Clock.fixed(at, ZoneOffset.UTC) : root.clock();
        HookVerifier verifier;
        try {
            verifier = HookVerifier.builder().platformDomains(domains)
                    .trustAnchors(TrustAnchors.jdkDefaults().plus(extraRoots))
                    .fetcher(CertificateFetcher.withDefaults(TlsTrust.withExtraRoots(extraRoots), overrides))
                    .clock(clock).build();
        } catch (IllegalArgumentException e) {
            throw CliException.usage("--domain: " + e.getMessage() + "; pass a domain such as platform.example", e);
        }
        try {
            HookVerifier.Verified verified = verifier.verify(signature, certificateUrl, raw);
            X509Certificate leaf = verified.chain().leaf();
            out.println("VERIFIED");
            out.println("  certificate URL:     " + verified.certificateUrl());
            out.println("  signed by:           " + leaf.getSubjectX500Principal().getName());
            out.println("  certificate valid:   until " + verified.chain().notAfter());
            out.println("  signature_timestamp: " + verified.signatureTimestamp() + " (checked at "
                    + clock.instant().truncatedTo(ChronoUnit.SECONDS) + ")");
            out.println("  body:                " + raw.length + " bytes, SHA256withRSA");
            return ExitCodes.OK;
        } catch (VerificationException e) {
            Hints.print(out, "NOT VERIFIED", e, Hints.Side.HOOK);
            return ExitCodes.FAILED;
        }
    }
}
