package com.convplatform.cli.sign;

import java.nio.file.Path;
import java.security.PrivateKey;
import java.util.Map;
import java.util.concurrent.Callable;

import com.convplatform.cli.PlatformCli;
import com.convplatform.cli.support.CliException;
import com.convplatform.cli.support.ExitCodes;
import com.convplatform.cli.support.Inputs;
import com.convplatform.crypto.management.ManagementRequestSigner;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sign}: the signature headers of a management request body, over the exact bytes of the file, by
 * crypto-common's {@link ManagementRequestSigner}: {@code Signature} (SHA-1, spec 5.1) and {@code Signature-256}
 * (SHA-256, the platform's extension), one {@code Name: value} line each, as {@code curl -H @FILE} reads them.
 */
@Command(name = "sign", mixinStandardHelpOptions = true, description = {
        "Print the signature headers for a management request body, one 'Name: value' line each (curl -H @FILE"
                + " reads them): Signature (SHA1withRSA or SHA1withECDSA, from the key type) and Signature-256"
                + " (SHA256withRSA or SHA256withECDSA).",
        "The exact bytes of the file are signed: send exactly those bytes."})
public final class SignCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--key", required = true, paramLabel = "FILE", description = "PEM private key: PKCS#8, PKCS#1 RSA or SEC1 EC (unencrypted).")
    Path key;

    @Option(names = "--body", required = true, paramLabel = "FILE", description = "The body to sign, byte for byte ('-' reads standard input).")
    Path body;

    @Option(names = "--sha1-only", description = "Print the Signature header only (SHA-1, as the specification names it),"
            + " for a platform that does not take Signature-256. An account that requires SHA-256 refuses it.")
    boolean sha1Only;

    @Override
    public Integer call() {
        PlatformCli root = PlatformCli.root(spec);
        PrivateKey privateKey = Inputs.readPrivateKey(key, "--key");
        byte[] bytes = Inputs.readBytes(body, "--body", Inputs.MAX_BODY_BYTES, root.stdin());
        ManagementRequestSigner signer;
        try {
            signer = new ManagementRequestSigner(privateKey);
        } catch (IllegalArgumentException e) {
            throw CliException.usage("The --key file '" + key + "' holds a " + privateKey.getAlgorithm()
                    + " key; management requests are signed with RSA or EC keys", e);
        }
        Map<String, String> headers = signer.headers(bytes, sha1Only);
        if (root.verbose()) {
            spec.commandLine().getErr().println("signed " + bytes.length + " bytes with "
                    + signer.algorithm().jcaName() + (sha1Only ? "" : " and " + signer.algorithm256().jcaName()));
        }
        headers.forEach((name, value) -> spec.commandLine().getOut().println(name + ": " + value));
        return ExitCodes.OK;
    }
}
