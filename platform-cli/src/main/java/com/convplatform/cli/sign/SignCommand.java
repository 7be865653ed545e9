package com.convplatform.cli.sign;

import java.nio.file.Path;
import java.security.PrivateKey;
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
 * {@code sign}: the {@code Signature} header value of a management request body (spec 5.1), over the exact bytes of
 * the file, by crypto-common's {@link ManagementRequestSigner}.
 */
@Command(name = "sign", mixinStandardHelpOptions = true, description = {
        "Print the Signature header value for a management request body (SHA1withRSA or"
                + " SHA1withECDSA, from the key type).",
        "The exact bytes of the file are signed: send exactly those bytes."})
public final class SignCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--key", required = true, paramLabel = "FILE", description = "PEM private key: PKCS#8, PKCS#1 RSA or SEC1 EC (unencrypted).")
    Path key;

    @Option(names = "--body", required = true, paramLabel = "FILE", description = "The body to sign, byte for byte ('-' reads standard input).")
    Path body;

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
        String signature = signer.sign(bytes);
        if (root.verbose()) {
            spec.commandLine().getErr().println("signed " + bytes.length + " bytes with "
                    + signer.algorithm().jcaName());
        }
        spec.commandLine().getOut().println(signature);
        return ExitCodes.OK;
    }
}
