package com.convplatform.cli.support;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;

import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.pem.Pem;

/**
 * Reads the files named on the command line. A file that is missing, unreadable, too large or not what the option
 * needs is a usage error whose message names the option, the file and what to do.
 */
public final class Inputs {
    /** Largest body file read: far above any management request or hook, small enough to never exhaust memory. */
    public static final int MAX_BODY_BYTES = 16 * 1024 * 1024;

    private Inputs() {
    }

    /**
     * The exact bytes of a file, or of standard input when {@code file} is {@code -}.
     *
     * @param option the option that named the file, for messages
     */
    public static byte[] readBytes(Path file, String option, int maxBytes, InputStream stdin) {
        if (file.toString().equals("-")) {
            try {
                byte[] data = stdin.readNBytes(maxBytes + 1);
                if (data.length > maxBytes) {
                    throw CliException.usage("Standard input (" + option + " -) is larger than " + maxBytes
                            + " bytes; pass a smaller body");
                }
                return data;
            } catch (IOException e) {
                throw CliException.usage("Standard input (" + option + " -) cannot be read: " + e.getMessage(), e);
            }
        }
        checkReadable(file, option);
        try {
            long size = Files.size(file);
            if (size > maxBytes) {
                throw CliException.usage("The " + option + " file '" + file + "' is " + size
                        + " bytes, more than the limit of " + maxBytes + "; is it the right file?");
            }
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw unreadable(file, option, e);
        }
    }

    /** A private key file (PKCS#8, PKCS#1 RSA or SEC1 EC PEM), parsed by crypto-common's {@link Pem}. */
    public static PrivateKey readPrivateKey(Path file, String option) {
        byte[] data = readBytes(file, option, Pem.DEFAULT_MAX_BYTES, InputStream.nullInputStream());
        try {
            return Pem.parsePrivateKey(new String(data, StandardCharsets.US_ASCII));
        } catch (IllegalArgumentException e) {
            throw CliException.usage("The " + option + " file '" + file + "' is not a usable private key: "
                    + e.getMessage() + ". Expected an unencrypted PEM private key such as the one 'cert create'"
                    + " writes (-----BEGIN PRIVATE KEY-----).", e);
        }
    }

    /**
     * A PEM certificate chain or list, parsed by crypto-common's {@link Pem}: a file that is not PEM certificates is
     * reported as {@link com.convplatform.crypto.FailureCode#CERT_MALFORMED}, which commands that check certificates
     * report as a failed check.
     */
    public static List<X509Certificate> readCertificates(Path file, String option) throws VerificationException {
        byte[] data = readBytes(file, option, Pem.DEFAULT_MAX_BYTES, InputStream.nullInputStream());
        return Pem.parseCertificates(data, Pem.DEFAULT_MAX_BYTES);
    }

    /**
     * Extra trusted roots from one or more PEM files; a file that is not PEM certificates is a usage error, because
     * trust is configuration, not the thing being checked.
     */
    public static List<X509Certificate> readTrustRoots(List<Path> files, String option) {
        List<X509Certificate> roots = new ArrayList<>();
        for (Path file : files) {
            try {
                roots.addAll(readCertificates(file, option));
            } catch (VerificationException e) {
                throw CliException.usage("The " + option + " file '" + file
                        + "' is not a list of PEM certificates: " + e.getMessage()
                        + ". Pass the CA's root certificate (-----BEGIN CERTIFICATE-----); repeat " + option
                        + " for several files.", e);
            }
        }
        return roots;
    }

    private static void checkReadable(Path file, String option) {
        if (!Files.exists(file)) {
            throw CliException.usage("The " + option + " file '" + file + "' does not exist (working directory: "
                    + Path.of("").toAbsolutePath() + ")");
        }
        if (Files.isDirectory(file)) {
            throw CliException.usage("The " + option + " file '" + file + "' is a directory; name a file");
        }
        if (!Files.isReadable(file)) {
            throw CliException.usage("The " + option + " file '" + file + "' cannot be read: permission denied");
        }
    }

    private static CliException unreadable(Path file, String option, IOException e) {
        String why = e instanceof NoSuchFileException
                ? "it does not exist"
                : e instanceof AccessDeniedException ? "permission denied" : e.toString();
        return CliException.usage("The " + option + " file '" + file + "' cannot be read: " + why, e);
    }
}
