package com.convplatform.cli.check;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;

import com.convplatform.cli.support.CliException;
import com.convplatform.cli.support.ExitCodes;
import com.convplatform.cli.support.Hints;
import com.convplatform.crypto.FailureCode;
import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.url.CertificateUrl;
import com.convplatform.crypto.url.CertificateUrlRule;
import com.convplatform.crypto.url.HookCertUrlRule;
import com.convplatform.crypto.url.ManagementCertUrlRule;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code check-url}: runs certificate URLs through crypto-common's {@link ManagementCertUrlRule} or
 * {@link HookCertUrlRule} and prints one line per URL on standard output; the fix for each failure code seen follows
 * on standard error.
 */
@Command(name = "check-url", mixinStandardHelpOptions = true, description = {
        "Check certificate URLs with the platform's rules (management or hook).", "One line per URL:",
        "  ACCEPT <url> -> <normalised URL that is downloaded>",
        "  REJECT <url>: <FAILURE_CODE>: <reason>",
        "Exit 0 when every URL is accepted, 1 otherwise."})
public final class CheckUrlCommand implements Callable<Integer> {

    /** Which rule to apply. */
    public enum Kind {
        /** SignatureCertChainUrl of a management request (spec 5.1). */
        MANAGEMENT,
        /** signature-certificate-url of a hook (spec 5.2). */
        HOOK
    }

    @Spec
    CommandSpec spec;

    @Option(names = "--kind", required = true, paramLabel = "KIND", description = "management (SignatureCertChainUrl, needs --fqdn) or hook (signature-certificate-url,"
            + " needs --domain).")
    Kind kind;

    @Option(names = "--fqdn", paramLabel = "FQDN", description = "management: the account's FQDN.")
    String fqdn;

    @Option(names = "--domain", paramLabel = "DOMAIN", description = "hook: a platform domain (production or staging); repeat for several.")
    List<String> domains = new ArrayList<>();

    @Parameters(arity = "1..*", paramLabel = "URL", description = "The URLs to check, exactly as sent in the header.")
    List<String> urls;

    @Override
    public Integer call() {
        CertificateUrlRule rule = rule();
        PrintWriter out = spec.commandLine().getOut();
        Set<FailureCode> seen = EnumSet.noneOf(FailureCode.class);
        for (String url : urls) {
            try {
                CertificateUrl normalised = rule.check(url);
                out.println("ACCEPT " + url + " -> " + normalised);
            } catch (VerificationException e) {
                out.println("REJECT " + url + ": " + e.code() + ": " + e.getMessage());
                seen.add(e.code());
            }
        }
        out.flush();
        if (seen.isEmpty()) {
            return ExitCodes.OK;
        }
        PrintWriter err = spec.commandLine().getErr();
        Hints.Side side = kind == Kind.HOOK ? Hints.Side.HOOK : Hints.Side.MANAGEMENT;
        for (FailureCode code : seen) {
            err.println("fix " + code + ": " + Hints.fix(code, side));
        }
        err.flush();
        return ExitCodes.FAILED;
    }

    private CertificateUrlRule rule() {
        if (kind == Kind.MANAGEMENT) {
            if (fqdn == null || fqdn.isBlank()) {
                throw CliException.usage("--kind management needs --fqdn: the account's FQDN that the URL's host"
                        + " must equal");
            }
            if (!domains.isEmpty()) {
                throw CliException.usage("--domain is for --kind hook; --kind management uses --fqdn");
            }
            return new ManagementCertUrlRule(fqdn);
        }
        if (domains.isEmpty()) {
            throw CliException.usage("--kind hook needs at least one --domain: the platform domain the URL's host"
                    + " must be a subdomain of (e.g. --domain platform.example)");
        }
        if (fqdn != null) {
            throw CliException.usage("--fqdn is for --kind management; --kind hook uses --domain");
        }
        try {
            return new HookCertUrlRule(domains);
        } catch (IllegalArgumentException e) {
            throw CliException.usage(e.getMessage() + "; --domain takes a domain such as platform.example", e);
        }
    }
}
