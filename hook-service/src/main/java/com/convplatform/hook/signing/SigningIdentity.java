package com.convplatform.hook.signing;

import static com.convplatform.crypto.sig.SignatureAlgorithm.SHA256_WITH_RSA;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
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

import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.chain.HostnameMatcher;
import com.convplatform.crypto.hook.HookSigner;
import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pem.PemFiles;
import com.convplatform.crypto.pki.CertificateBuilder;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.crypto.sig.CryptoProviders;
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
        java.nio.file.Path dir = Paths.get(config.dataDir(), "signing"); // unless both files are set (HookConfigChecks)
        if (config.signingKeyFile().isEmpty() && !Files.exists(dir.resolve("key.pem"))) {
            generate(dir, clock.instant());
        }
        key = Pem.parsePrivateKey(
                PemFiles.read(config.signingKeyFile().map(Paths::get).orElse(dir.resolve("key.pem"))));
        String chainPem = PemFiles.read(config.signingChainFile().map(Paths::get).orElse(dir.resolve("chain.pem")));
        X509Certificate first;
        try {
            List<X509Certificate> chain = Pem.parseCertificates(chainPem);
            first = chain.get(0);
            document = new CertificateDocument(Pem.toPem(chain), chain.get(0).getNotAfter().toInstant(), HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(chain.get(0).getEncoded())));
        } catch (VerificationException | GeneralSecurityException e) {
            throw new IllegalStateException("The hook signing chain is not usable: " + e.getMessage(), e);
        }
        matching(key, first, URI.create(config.certificateUrl()).getHost()).throwIfAny();
        signer = new HookSigner(key, config.certificateUrl(), CryptoProviders.recommended());
        Gauge.builder("hook.signing.certificate.not_after.timestamp", document, d -> d.notAfter().getEpochSecond())
                .baseUnit("seconds")
                .description("notAfter of the certificate hooks are signed with (the first of hook.signing.chain-file)")
                .register(metrics);
        LOG.infof("Hook signing certificate %s (not after %s), served for %s", document.sha256Fingerprint(),
                document.notAfter(), config.certificateUrl());
    }

    /**
     * Stops the start when no receiver could verify a hook (spec 5.2): the key is not the signing certificate's, or
     * the certificate does not name the host of {@code hook.certificate-url}. A rotation that changed one file only
     * would otherwise sign every hook in vain, each refused with 400 and dead-lettered.
     */
    static ConfigChecks matching(PrivateKey key, X509Certificate cert, String host) {
        String keyFile = "hook.signing.key-file";
        String chainFile = "hook.signing.chain-file";
        boolean pair;
        try { // the signing code hooks use, and the verification a receiver makes
            byte[] probe = "hook-service start-up probe".getBytes(StandardCharsets.US_ASCII);
            CryptoProviders providers = CryptoProviders.recommended();
            byte[] signature = Base64.getDecoder().decode(Signatures.sign(SHA256_WITH_RSA, key, probe, providers));
            pair = Signatures.verify(SHA256_WITH_RSA, cert.getPublicKey(), probe, signature, providers);
        } catch (IllegalArgumentException | VerificationException e) { // not RSA, or not usable
            pair = false;
        }
        return ConfigChecks.of("hook-service").require(pair, "the key of " + keyFile + " and the first certificate of "
                + chainFile + " (" + cert.getSubjectX500Principal() + ") must be one RSA pair (SHA256withRSA, spec"
                + " 5.2), or no hook verifies; set both from the same rotation", keyFile, chainFile)
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
