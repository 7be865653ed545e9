package com.convplatform.cli.cert;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.Callable;

import com.convplatform.cli.PlatformCli;
import com.convplatform.cli.support.CliException;
import com.convplatform.cli.support.ExitCodes;
import com.convplatform.crypto.Fingerprints;
import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.chain.ChainValidator;
import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pki.CertificateBuilder;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.crypto.sig.KeyPolicy;
import com.convplatform.crypto.sig.Signatures;
import com.convplatform.crypto.url.ManagementCertUrlRule;

import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code cert create}: a fresh key pair and a self-signed certificate naming the FQDN in its Subject Alternative
 * Names, checked with the platform's own self-signed rules before anything is written. Existing files are never
 * overwritten without {@code --force}; the key file is created readable by its owner only.
 */
@Command(name = "create", mixinStandardHelpOptions = true, description = {
        "Create a key pair and a self-signed certificate with the FQDN in its Subject Alternative Names.",
        "Register the certificate with the platform, then sign requests with --cert-uuid."})
public final class CertCreateCommand implements Callable<Integer> {
    /** Longest validity offered: ten years. */
    static final int MAX_DAYS = 3650;

    @Spec
    CommandSpec spec;

    @Option(names = "--fqdn", required = true, paramLabel = "FQDN", description = "Your account's fully qualified domain name, e.g. client.example.com.")
    String fqdn;

    @ArgGroup(exclusive = true)
    KeyType keyType = new KeyType();

    static final class KeyType {
        @Option(names = "--rsa", description = "RSA 2048-bit key (SHA1withRSA for management requests).")
        boolean rsa;

        @Option(names = "--ec", description = "EC P-256 key (SHA1withECDSA). The default.")
        boolean ec;
    }

    @Option(names = "--days", defaultValue = "365", paramLabel = "N", description = "Validity in days, from now (default: ${DEFAULT-VALUE}; 1 to "
            + MAX_DAYS + ").")
    int days;

    @Option(names = "--out-key", paramLabel = "FILE", description = "Where to write the PKCS#8 private key (default: <fqdn>-key.pem). Created with mode 0600.")
    Path outKey;

    @Option(names = "--out-cert", paramLabel = "FILE", description = "Where to write the PEM certificate (default: <fqdn>-cert.pem).")
    Path outCert;

    @Option(names = "--force", description = "Overwrite existing output files.")
    boolean force;

    @Override
    public Integer call() {
        PlatformCli root = PlatformCli.root(spec);
        PrintWriter out = spec.commandLine().getOut();
        if (days < 1 || days > MAX_DAYS) {
            throw CliException.usage("--days must be between 1 and " + MAX_DAYS + ", not " + days);
        }
        String name = checkedFqdn();
        Path keyFile = outKey != null ? outKey : Path.of(name + "-key.pem");
        Path certFile = outCert != null ? outCert : Path.of(name + "-cert.pem");
        if (keyFile.toAbsolutePath().normalize().equals(certFile.toAbsolutePath().normalize())) {
            throw CliException.usage("--out-key and --out-cert name the same file '" + keyFile
                    + "'; the key and the certificate go to separate files");
        }
        for (Path p : new Path[]{keyFile, certFile}) {
            if (Files.exists(p) && !force) {
                throw CliException.usage("'" + p + "' already exists; it may hold a key in use. Choose another"
                        + " file with --out-key/--out-cert, or pass --force to overwrite it");
            }
            if (Files.isDirectory(p)) {
                throw CliException.usage("'" + p + "' is a directory; name a file");
            }
        }

        KeyPair pair = keyType.rsa ? KeyPairs.rsa() : KeyPairs.ecP256();
        Instant now = root.clock().instant();
        X509Certificate cert = CertificateBuilder.forKey(pair.getPublic()).commonName(name).dnsNames(name)
                .validity(now.minus(Duration.ofMinutes(5)), now.plus(Duration.ofDays(days)))
                .selfSigned(pair.getPrivate());
        try {
            // The platform applies these checks when the certificate is registered and on every request.
            ChainValidator.validateSelfSigned(cert, name, now);
            KeyPolicy.check(cert.getPublicKey());
        } catch (VerificationException e) {
            throw new IllegalStateException("The new certificate fails the platform's own checks: " + e, e);
        }

        boolean restricted = writeKey(keyFile, Pem.toPem(pair.getPrivate()));
        write(certFile, Pem.toPem(cert));

        out.println("Created " + (keyType.rsa ? "an RSA 2048" : "an EC P-256") + " key and a self-signed"
                + " certificate for " + name);
        out.println("  private key:  " + keyFile + " (PKCS#8 PEM" + (restricted ? ", mode 0600" : "") + ")");
        out.println("  certificate:  " + certFile);
        out.println("  subject:      " + cert.getSubjectX500Principal().getName());
        out.println("  SAN:          DNS:" + name);
        out.println("  valid:        " + cert.getNotBefore().toInstant() + " to " + cert.getNotAfter().toInstant());
        out.println("  SHA-256:      " + Fingerprints.sha256(cert));
        out.println("  signs with:   " + algorithmName(cert));
        out.println("Next: have the platform operator register " + certFile + " for your account"
                + " (POST /admin/v1/accounts/{account_id}/certificates), then send signed requests with"
                + " --key " + keyFile + " --cert-uuid <certificate_uuid>.");
        if (!restricted) {
            spec.commandLine().getErr().println("warning: this file system cannot restrict '" + keyFile
                    + "' to its owner; protect the private key yourself");
        }
        return ExitCodes.OK;
    }

    /** The FQDN must be usable as the host of a certificate URL: the platform's own URL rule decides. */
    private String checkedFqdn() {
        try {
            return new ManagementCertUrlRule(fqdn).check("https://" + fqdn + ManagementCertUrlRule.PATH_PREFIX)
                    .host();
        } catch (VerificationException e) {
            throw CliException.usage("--fqdn '" + fqdn + "' is not a host name the platform accepts ("
                    + e.code() + ": " + e.getMessage() + "); pass a DNS name like client.example.com", e);
        }
    }

    private static String algorithmName(X509Certificate cert) {
        try {
            return Signatures.managementAlgorithm(cert.getPublicKey()).jcaName() + " (management requests)";
        } catch (VerificationException e) {
            return "(unsupported key)";
        }
    }

    /** Creates the key file readable by its owner only; returns false when the file system cannot say so. */
    private boolean writeKey(Path file, String pem) {
        try {
            Files.deleteIfExists(file);
            boolean posix = Files.getFileStore(parentOf(file)).supportsFileAttributeView("posix");
            if (posix) {
                Set<PosixFilePermission> ownerOnly = PosixFilePermissions.fromString("rw-------");
                Files.createFile(file, PosixFilePermissions.asFileAttribute(ownerOnly));
            } else {
                Files.createFile(file);
            }
            Files.writeString(file, pem, StandardCharsets.US_ASCII);
            return posix;
        } catch (FileAlreadyExistsException e) {
            throw CliException.usage("'" + file + "' appeared while writing; nothing was overwritten", e);
        } catch (IOException e) {
            throw CliException.usage("Cannot write the private key to '" + file + "': " + e.getMessage(), e);
        }
    }

    private static void write(Path file, String pem) {
        try {
            Files.writeString(file, pem, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw CliException.usage("Cannot write the certificate to '" + file + "': " + e.getMessage(), e);
        }
    }

    private static Path parentOf(Path file) {
        Path parent = file.toAbsolutePath().getParent();
        if (parent == null || !Files.isDirectory(parent)) {
            throw CliException.usage("The directory of '" + file + "' does not exist; create it first");
        }
        return parent;
    }
}
