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
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

import jakarta.annotation.PreDestroy;
import jakarta.annotation.security.PermitAll;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;
import org.jboss.logging.Logger;

import com.convplatform.crypto.Fingerprints;
import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.chain.HostnameMatcher;
import com.convplatform.crypto.hook.HookSigner;
import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pem.PemFiles;
import com.convplatform.crypto.pki.CertificateBuilder;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.crypto.sig.CryptoProviders;
import com.convplatform.crypto.sig.KeyPolicy;
import com.convplatform.crypto.sig.Signatures;
import com.convplatform.hook.config.HookConfig;
import com.convplatform.support.ApiError;
import com.convplatform.support.ConfigChecks;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;

/** The hook-signing key and chain (from files, or generated), and the document receivers verify hooks with (4.3). */
@ApplicationScoped
@Path(SigningIdentity.PATH)
@PermitAll
@Tag(name = "certificate", description = "Public: what receivers download to verify hooks (spec 4.3, 5.2)")
public class SigningIdentity {
    private static final Logger LOG = Logger.getLogger(SigningIdentity.class);
    static final String PATH = "/platform/hooks/certificate/";
    static final String KEY_FILE = "hook.signing.key-file";
    static final String CHAIN_FILE = "hook.signing.chain-file";

    public record CertificateDocument(
            @Schema(description = "PEM chain, signing certificate first", example = "-----BEGIN CERTIFICATE-----\nMIIC...\n-----END CERTIFICATE-----\n") String certificate,
            Instant notAfter,
            @Schema(example = "77bc571e3d150a4f60ead280f014a2e0d71c5441cb99b7a8aecf7136a31831c2") String sha256Fingerprint) {
    }

    private final HookConfig config;
    private final HookSigner signer;
    private final PrivateKey key; // for the local HTTPS seam only
    private final CertificateDocument document;
    private HttpServer localHttps;

    public SigningIdentity(HookConfig config, Clock clock, MeterRegistry metrics) {
        this.config = config;
        Source source = Source.of(config); // both files set, or neither (HookConfigChecks)
        if (source.generated() && !Files.exists(source.key())) {
            generate(source.key().getParent(), clock.instant());
        }
        ConfigChecks checks = ConfigChecks.of("hook-service"); // the set files were checked before (HookConfigChecks)
        Material read = read(source, checks);
        if (read != null) {
            usable(source, read, host(config.certificateUrl()), clock.instant(), checks);
        }
        checks.throwIfAny();
        key = read.key();
        X509Certificate first = read.chain().get(0);
        document = new CertificateDocument(Pem.toPem(read.chain()), first.getNotAfter().toInstant(),
                Fingerprints.sha256(first));
        signer = new HookSigner(key, config.certificateUrl(), CryptoProviders.recommended());
        Gauge.builder("hook.signing.certificate.not_after.timestamp", document, d -> d.notAfter().getEpochSecond())
                .baseUnit("seconds")
                .description("notAfter of the certificate hooks are signed with (the first of hook.signing.chain-file)")
                .register(metrics);
        LOG.infof("Hook signing certificate %s (not after %s), served for %s", document.sha256Fingerprint(),
                document.notAfter(), config.certificateUrl());
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
        Source source = Source.of(config);
        Material read = read(source, checks);
        if (read != null) {
            usable(source, read, host(config.certificateUrl()), now, checks);
        }
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

    public HookSigner signer() {
        return signer;
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "The hook-signing certificate chain named in each hook's signature-certificate-url")
    @APIResponse(responseCode = "200", description = "The chain, its end of validity and fingerprint")
    public CertificateDocument certificate() {
        return document;
    }

    void startLocalHttps(@Observes StartupEvent event, ObjectMapper json, Vertx vertx) throws Exception {
        if (config.localHttpsPort().isEmpty()) {
            return;
        }
        String body = json.writeValueAsString(certificate());
        String refusal = json.writeValueAsString(new ApiError("NOT_FOUND", "This listener serves only " + PATH));
        PemKeyCertOptions keyCert = new PemKeyCertOptions().setKeyValue(Buffer.buffer(Pem.toPem(key)))
                .setCertValue(Buffer.buffer(document.certificate()));
        localHttps = vertx.createHttpServer(new HttpServerOptions().setSsl(true).setKeyCertOptions(keyCert)
                .setHost("127.0.0.1").setPort(config.localHttpsPort().get())).requestHandler(req -> {
                    boolean document = "GET".equals(req.method().name()) && PATH.equals(req.path());
                    req.response().setStatusCode(document ? 200 : 404).putHeader("Content-Type", "application/json")
                            .end(document ? body : refusal);
                });
        localHttps.listen().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        LOG.infof("Local HTTPS listener for the hook certificate on https://127.0.0.1:%d%s (hook.local-https.port;"
                + " a seam for local runs)", config.localHttpsPort().get(), PATH);
    }

    @PreDestroy
    void stop() {
        if (localHttps != null) {
            localHttps.close();
        }
    }

    private void generate(java.nio.file.Path dir, Instant now) {
        String host = URI.create(config.certificateUrl()).getHost();
        KeyPair caKey = KeyPairs.ecP256();
        X509Certificate ca = CertificateBuilder.forKey(caKey.getPublic()).subject("CN=Local hook signing CA")
                .ca(0).validity(now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(3650)))
                .selfSigned(caKey.getPrivate());
        KeyPair leafKey = KeyPairs.rsa(2048);
        X509Certificate leaf = CertificateBuilder.forKey(leafKey.getPublic()).commonName(host).dnsNames(host)
                .validity(now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(397))).serverAuth()
                .issuer(ca, caKey.getPrivate()).build();
        PemFiles.writeOwnerOnly(dir.resolve("ca.pem"), Pem.toPem(ca));
        PemFiles.writeOwnerOnly(dir.resolve("chain.pem"), Pem.toPem(List.of(leaf, ca)));
        PemFiles.writeOwnerOnly(dir.resolve("key.pem"), Pem.toPem(leafKey.getPrivate()));
        LOG.infof("Generated a local hook signing CA and key for %s under %s; receivers trust %s", host, dir,
                dir.resolve("ca.pem"));
    }
}
