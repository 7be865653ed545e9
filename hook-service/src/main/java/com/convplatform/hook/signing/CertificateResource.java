package com.convplatform.hook.signing;

import java.time.Instant;
import java.util.concurrent.TimeUnit;

import jakarta.annotation.PreDestroy;
import jakarta.annotation.security.PermitAll;
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

import com.convplatform.crypto.pem.Pem;
import com.convplatform.hook.config.HookConfig;
import com.convplatform.support.ApiError;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;

/**
 * Spec 4.3: the hook-signing certificate chain, for receivers to verify hooks with. Also the
 * {@code hook.local-https.port} seam (off unless the port is set): an HTTPS listener on 127.0.0.1 whose TLS
 * certificate is the signing certificate, answering only {@code GET /platform/hooks/certificate/} with the same
 * document, so a receiver on a developer's machine verifies hooks exactly as in production (HTTPS download, chain to
 * the trusted local CA, host in the SANs).
 */
@Path(CertificateResource.PATH)
@PermitAll
@Tag(name = "certificate", description = "Public: what receivers download to verify hooks (spec 4.3, 5.2)")
public class CertificateResource {
    private static final Logger LOG = Logger.getLogger(CertificateResource.class);
    static final String PATH = "/platform/hooks/certificate/";

    /** The document receivers download. */
    public record CertificateDocument(
            @Schema(description = "PEM chain, signing certificate first", example = "-----BEGIN CERTIFICATE-----\nMIIC...\n-----END CERTIFICATE-----\n") String certificate,
            @JsonProperty("not_after") Instant notAfter,
            @JsonProperty("sha256_fingerprint") @Schema(example = "77bc571e3d150a4f60ead280f014a2e0d71c5441cb99b7a8aecf7136a31831c2") String sha256Fingerprint) {
    }

    private final SigningIdentity identity;
    private final HookConfig config;
    private HttpServer localHttps;

    public CertificateResource(SigningIdentity identity, HookConfig config) {
        this.identity = identity;
        this.config = config;
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "The hook-signing certificate chain named in each hook's signature-certificate-url")
    @APIResponse(responseCode = "200", description = "The chain, its end of validity and fingerprint")
    public CertificateDocument certificate() {
        SigningIdentity.Current c = identity.current();
        return new CertificateDocument(c.chainPem(), c.chain().get(0).getNotAfter().toInstant(), c.fingerprint());
    }

    void startLocalHttps(@Observes StartupEvent event, ObjectMapper json, Vertx vertx) throws Exception {
        if (config.localHttps().port().isEmpty()) {
            return;
        }
        SigningIdentity.Current c = identity.current();
        String body = json.writeValueAsString(certificate());
        String refusal = json.writeValueAsString(new ApiError("NOT_FOUND", "This listener serves only " + PATH));
        PemKeyCertOptions keyCert = new PemKeyCertOptions().setKeyValue(Buffer.buffer(Pem.toPem(c.key())))
                .setCertValue(Buffer.buffer(c.chainPem()));
        localHttps = vertx.createHttpServer(new HttpServerOptions().setSsl(true).setKeyCertOptions(keyCert)
                .setHost("127.0.0.1").setPort(config.localHttps().port().get())).requestHandler(req -> {
                    boolean document = "GET".equals(req.method().name()) && PATH.equals(req.path());
                    req.response().setStatusCode(document ? 200 : 404).putHeader("Content-Type", "application/json")
                            .end(document ? body : refusal);
                });
        localHttps.listen().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        LOG.infof("Local HTTPS listener for the hook certificate on https://127.0.0.1:%d%s (hook.local-https.port;"
                + " a seam for local runs)", config.localHttps().port().get(), PATH);
    }

    @PreDestroy
    void stop() {
        if (localHttps != null) {
            localHttps.close();
        }
    }
}
