package com.convplatform.cli.hook;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.Callable;

import com.convplatform.cli.PlatformCli;
import com.convplatform.cli.support.ExitCodes;
import com.convplatform.cli.support.Hints;
import com.convplatform.cli.support.Inputs;
import com.convplatform.cli.support.InstantConverter;
import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.hook.HookVerifier;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
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

    @Mixin
    VerifierOptions verifierOptions;

    @Option(names = "--at", paramLabel = "INSTANT", converter = InstantConverter.class, description = "Verify as of this instant (certificate validity and the 120 s window), to replay a"
            + " captured hook; the download's TLS still uses the real time.")
    Instant at;

    @Override
    public Integer call() {
        PlatformCli root = PlatformCli.root(spec);
        PrintWriter out = spec.commandLine().getOut();
        byte[] raw = Inputs.readBytes(body, "--body", Inputs.MAX_BODY_BYTES, root.stdin());
        Clock clock = at != null ? Clock.fixed(at, ZoneOffset.UTC) : root.clock();
        HookVerifier verifier = verifierOptions.build(clock);
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
