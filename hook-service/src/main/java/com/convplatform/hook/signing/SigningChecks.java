package com.convplatform.hook.signing;

import static com.convplatform.crypto.sig.SignatureAlgorithm.SHA256_WITH_RSA;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Paths;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.List;

import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.chain.HostnameMatcher;
import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.sig.CryptoProviders;
import com.convplatform.crypto.sig.KeyPolicy;
import com.convplatform.crypto.sig.Signatures;
import com.convplatform.hook.config.HookConfig;
import com.convplatform.support.ConfigChecks;

/** The start-up checks of the signing key and chain files; each problem names the setting to mend. */
public final class SigningChecks {
    static final String KEY_FILE = "hook.signing.key-file";
    static final String CHAIN_FILE = "hook.signing.chain-file";

    private SigningChecks() {
    }

    /**
     * Where the signing key and chain are read from: the files of {@value #KEY_FILE} and {@value #CHAIN_FILE}, or,
     * when neither is set, the ones generated under {@code hook.data-dir}. Problems name the settings to mend.
     */
    record Source(java.nio.file.Path key, java.nio.file.Path chain, boolean generated) {
        static Source of(HookConfig config) {
            if (config.signingKeyFile().isPresent() && config.signingChainFile().isPresent()) {
                return new Source(Paths.get(config.signingKeyFile().get()), Paths.get(config.signingChainFile().get()),
                        false);
            }
            java.nio.file.Path dir = Paths.get(config.dataDir(), "signing");
            return new Source(dir.resolve("key.pem"), dir.resolve("chain.pem"), true);
        }

        String keySetting() {
            return generated ? "hook.data-dir" : KEY_FILE;
        }

        String chainSetting() {
            return generated ? "hook.data-dir" : CHAIN_FILE;
        }

        /** The key file as a problem names it. */
        String keyName() {
            return generated
                    ? "the signing key generated under hook.data-dir (" + key + ")"
                    : KEY_FILE + " (" + key + ")";
        }

        /** The chain file as a problem names it. */
        String chainName() {
            return generated
                    ? "the signing chain generated under hook.data-dir (" + chain + ")"
                    : CHAIN_FILE + " (" + chain + ")";
        }

        /** What an operator does about a certificate receivers refuse. */
        String remedy() {
            return generated
                    ? "delete " + key.getParent() + " for a new generated one, or set " + KEY_FILE + " and "
                            + CHAIN_FILE
                    : "set " + KEY_FILE + " and " + CHAIN_FILE + " from a new rotation";
        }
    }

    /** The signing key and chain (signing certificate first) as read from their files. */
    record Material(PrivateKey key, List<X509Certificate> chain) {
    }

    /**
     * Adds to {@code checks} why the files that {@value #KEY_FILE} and {@value #CHAIN_FILE} name cannot sign hooks that
     * receivers accept at {@code now} (the start-up checks list them with the other settings' problems): a file that
     * cannot be read or parsed, a key that is not the certificate's, a certificate for another host than
     * {@code hook.certificate-url}'s, out of its dates or with a key receivers refuse. Nothing when the files are not
     * both set (generated: checked when the service loads it; or only one set, which HookConfigChecks refuses).
     */
    public static void checkFiles(HookConfig config, Instant now, ConfigChecks checks) {
        if (config.signingKeyFile().isEmpty() || config.signingChainFile().isEmpty()) {
            return;
        }
        check(Source.of(config), config.certificateUrl(), now, checks);
    }

    /** {@link #read}, then {@link #usable} on what was read: the key and chain, or null when they cannot be read. */
    static Material check(Source source, String certificateUrl, Instant now, ConfigChecks checks) {
        Material read = read(source, checks);
        if (read != null) {
            usable(source, read, host(certificateUrl), now, checks);
        }
        return read;
    }

    /** The host of the certificate URL, or null when it has none (HookConfigChecks refuses such a URL). */
    private static String host(String certificateUrl) {
        try {
            return URI.create(certificateUrl.trim()).getHost();
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * The key and chain of {@code source}, or null with a problem in {@code checks} for each file that cannot be read
     * or parsed: the problem names the setting, the path and the reason, never the file's content.
     */
    static Material read(Source source, ConfigChecks checks) {
        PrivateKey key = null;
        try {
            key = Pem.parsePrivateKey(Files.readString(source.key(), StandardCharsets.US_ASCII));
        } catch (IOException e) {
            checks.require(false, source.keyName() + " cannot be read: " + reason(e), source.keySetting());
        } catch (IllegalArgumentException e) { // the parser's messages describe the blocks, never their content
            checks.require(false, source.keyName() + " is not a usable private key: " + e.getMessage(),
                    source.keySetting());
        }
        List<X509Certificate> chain = null;
        try {
            chain = Pem.parseCertificates(Files.readString(source.chain(), StandardCharsets.US_ASCII));
        } catch (IOException e) {
            checks.require(false, source.chainName() + " cannot be read: " + reason(e), source.chainSetting());
        } catch (VerificationException e) {
            checks.require(false, source.chainName() + " is not a usable PEM certificate chain: " + e.getMessage(),
                    source.chainSetting());
        }
        return key == null || chain == null ? null : new Material(key, chain);
    }

    /** Why a file cannot be read, for a person: the JDK's exceptions carry the path alone as their message. */
    private static String reason(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof CharacterCodingException) {
            return "it is not text (PEM is ASCII)";
        }
        String message = e.getMessage();
        return message == null ? e.getClass().getSimpleName() : e.getClass().getSimpleName() + ": " + message;
    }

    /**
     * Adds to {@code checks} why receivers would refuse every hook signed with {@code read} at {@code now}: the
     * {@link #matching} problems, a certificate of the chain out of its dates (CERT_EXPIRED, CERT_NOT_YET_VALID,
     * compared at whole seconds as receivers do), or a signing key outside {@link KeyPolicy} (CERT_KEY_UNSUPPORTED).
     */
    static void usable(Source source, Material read, String host, Instant now, ConfigChecks checks) {
        X509Certificate first = read.chain().get(0);
        matching(read.key(), first, host, checks);
        Instant at = now.truncatedTo(ChronoUnit.SECONDS);
        for (int i = 0; i < read.chain().size(); i++) {
            X509Certificate cert = read.chain().get(i);
            Instant from = cert.getNotBefore().toInstant();
            Instant to = cert.getNotAfter().toInstant();
            String which = i == 0 ? "the signing certificate, the first of " : "certificate " + (i + 1) + " of ";
            String dates = which + source.chainName() + " (" + cert.getSubjectX500Principal() + "), is valid from "
                    + from + " to " + to;
            checks.require(!at.isAfter(to), dates + " and has expired (now " + at + "): receivers refuse every hook"
                    + " (CERT_EXPIRED); " + source.remedy(), source.chainSetting());
            checks.require(!at.isBefore(from), dates + " and is not valid yet (now " + at + "): receivers refuse"
                    + " every hook (CERT_NOT_YET_VALID); " + source.remedy(), source.chainSetting());
        }
        try {
            KeyPolicy.check(first.getPublicKey());
        } catch (VerificationException e) {
            checks.require(false, "the key of " + source.keyName() + " and of the signing certificate, the first of "
                    + source.chainName() + " (" + first.getSubjectX500Principal() + ", valid from "
                    + first.getNotBefore().toInstant() + " to " + first.getNotAfter().toInstant() + "), is one"
                    + " receivers refuse: " + e.getMessage() + "; they refuse every hook (CERT_KEY_UNSUPPORTED); "
                    + source.remedy(), source.keySetting(), source.chainSetting());
        }
    }

    /**
     * Stops the start when no receiver could verify a hook (spec 5.2): the key is not the signing certificate's, or
     * the certificate does not name the host of {@code hook.certificate-url}. A rotation that changed one file only
     * would otherwise sign every hook in vain, each refused with 400 and dead-lettered.
     */
    static ConfigChecks matching(PrivateKey key, X509Certificate cert, String host) {
        ConfigChecks checks = ConfigChecks.of("hook-service");
        matching(key, cert, host, checks);
        return checks;
    }

    /** {@link #matching(PrivateKey, X509Certificate, String)}, its problems added to {@code checks}. */
    static void matching(PrivateKey key, X509Certificate cert, String host, ConfigChecks checks) {
        String keyFile = KEY_FILE;
        String chainFile = CHAIN_FILE;
        boolean pair;
        try { // the signing code hooks use, and the verification a receiver makes
            byte[] probe = "hook-service start-up probe".getBytes(StandardCharsets.US_ASCII);
            CryptoProviders providers = CryptoProviders.recommended();
            byte[] signature = Base64.getDecoder().decode(Signatures.sign(SHA256_WITH_RSA, key, probe, providers));
            pair = Signatures.verify(SHA256_WITH_RSA, cert.getPublicKey(), probe, signature, providers);
        } catch (IllegalArgumentException | VerificationException e) { // not RSA, or not usable
            pair = false;
        }
        checks.require(pair, "the key of " + keyFile + " and the first certificate of " + chainFile + " ("
                + cert.getSubjectX500Principal() + ") must be one RSA pair (SHA256withRSA, spec 5.2), or no hook"
                + " verifies; set both from the same rotation", keyFile, chainFile)
                .require(host != null && HostnameMatcher.matches(cert, host), "the signing certificate ("
                        + cert.getSubjectX500Principal() + ") must name the host of hook.certificate-url (" + host
                        + ") in its SAN, or receivers refuse every hook (spec 5.2)", "hook.certificate-url", chainFile);
    }
}
