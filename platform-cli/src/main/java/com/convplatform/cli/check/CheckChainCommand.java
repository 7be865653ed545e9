package com.convplatform.cli.check;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Instant;
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
import com.convplatform.crypto.FailureCode;
import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.chain.ChainValidator;
import com.convplatform.crypto.chain.TrustAnchors;
import com.convplatform.crypto.chain.ValidatedChain;
import com.convplatform.crypto.sig.KeyPolicy;
import com.convplatform.crypto.sig.Signatures;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code check-chain}: the platform's step 2 of spec 5.1 on a PEM chain file, by crypto-common's
 * {@link ChainValidator} and {@link KeyPolicy}: validity at an instant, the FQDN in the SANs, the path to a trusted
 * root, CA flags, key usage, and a supported key. With {@code --self-signed}, the checks the platform applies to a
 * registered self-signed certificate instead.
 */
@Command(name = "check-chain", mixinStandardHelpOptions = true, description = {
        "Check a PEM certificate chain (signing certificate first) as the platform does before"
                + " trusting a management request.",
        "Prints OK and a summary, or FAIL <FAILURE_CODE>: <reason> with the fix. Exit 0 or 1."})
public final class CheckChainCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--chain", required = true, paramLabel = "FILE", description = "PEM chain: the signing certificate first, then the intermediates (the root may be left"
            + " out).")
    Path chain;

    @Option(names = "--fqdn", required = true, paramLabel = "FQDN", description = "The FQDN that must be in the signing certificate's Subject Alternative Names.")
    String fqdn;

    @Option(names = "--trust", paramLabel = "FILE", description = "Extra trusted root certificates (PEM), added to this JVM's roots; repeatable.")
    List<Path> trust = new ArrayList<>();

    @Option(names = "--at", paramLabel = "INSTANT", converter = InstantConverter.class, description = "Check validity at this instant instead of now, e.g. 2027-01-31T12:00:00Z.")
    Instant at;

    @Option(names = "--self-signed", description = "Check a self-signed certificate as the platform checks a registered one (no trust"
            + " anchors; --trust is not used).")
    boolean selfSigned;

    @Override
    public Integer call() {
        PlatformCli root = PlatformCli.root(spec);
        PrintWriter out = spec.commandLine().getOut();
        if (selfSigned && !trust.isEmpty()) {
            throw CliException.usage("--trust has no effect with --self-signed: a self-signed certificate is"
                    + " trusted because it is registered, not through a root");
        }
        Instant when = at != null ? at : root.clock().instant();
        TrustAnchors anchors = selfSigned
                ? null
                : TrustAnchors.jdkDefaults().plus(Inputs.readTrustRoots(trust, "--trust"));
        try {
            List<X509Certificate> certificates = Inputs.readCertificates(chain, "--chain");
            ValidatedChain validated;
            if (selfSigned) {
                if (certificates.size() != 1) {
                    throw new VerificationException(FailureCode.CERT_MALFORMED,
                            "The file holds " + certificates.size() + " certificates; a self-signed certificate is"
                                    + " registered alone");
                }
                validated = ChainValidator.validateSelfSigned(certificates.get(0), fqdn, when);
            } else {
                validated = new ChainValidator(anchors).validate(certificates, fqdn, when);
            }
            KeyPolicy.check(validated.publicKey());
            out.println("OK");
            printSummary(out, validated, certificates, when);
            return ExitCodes.OK;
        } catch (VerificationException e) {
            Hints.print(out, "FAIL", e, Hints.Side.MANAGEMENT);
            return ExitCodes.FAILED;
        }
    }

    private void printSummary(PrintWriter out, ValidatedChain validated, List<X509Certificate> sent, Instant when) {
        X509Certificate leaf = validated.leaf();
        out.println("  subject:     " + leaf.getSubjectX500Principal().getName());
        out.println("  checked for: " + fqdn + " at " + when.truncatedTo(ChronoUnit.SECONDS));
        out.println("  not after:   " + leaf.getNotAfter().toInstant()
                + (validated.notAfter().isBefore(leaf.getNotAfter().toInstant())
                        ? " (the chain as a whole until " + validated.notAfter() + ")"
                        : ""));
        String algorithm;
        try {
            algorithm = Signatures.managementAlgorithm(validated.publicKey()).jcaName();
        } catch (VerificationException e) {
            algorithm = "(unsupported)";
        }
        out.println("  key:         " + validated.publicKey().getAlgorithm() + ", signs management requests with "
                + algorithm);
        if (selfSigned) {
            out.println("  trust:       self-signed; the platform accepts it once registered for " + fqdn);
        } else {
            List<X509Certificate> path = validated.certificates();
            X509Certificate last = path.get(path.size() - 1);
            out.println("  path:        " + path.size() + " certificate(s) of the " + sent.size()
                    + " sent, ending at a root trusted here: " + last.getIssuerX500Principal().getName());
        }
    }
}
