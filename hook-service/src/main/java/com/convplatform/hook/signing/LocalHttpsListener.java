package com.convplatform.hook.signing;

import java.util.concurrent.TimeUnit;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import com.convplatform.crypto.pem.Pem;
import com.convplatform.hook.config.HookConfig;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;

/**
 * The {@code hook.local-https.port} seam: an HTTPS listener on 127.0.0.1 whose TLS certificate is the hook signing
 * certificate, answering only {@code GET /platform/hooks/certificate/} with the same document as
 * {@link CertificateResource}. It lets a receiver on a developer's machine verify hooks exactly as in production
 * (HTTPS download, chain to the trusted local CA, host in the SANs). Off unless the port is set.
 */
@ApplicationScoped
public class LocalHttpsListener {
    private static final Logger LOG = Logger.getLogger(LocalHttpsListener.class);
    static final String PATH = "/platform/hooks/certificate/";

    private final HookConfig config;
    private final SigningIdentity identity;
    private final CertificateResource document;
    private final ObjectMapper json;
    private final Vertx vertx;
    private HttpServer server;

    public LocalHttpsListener(HookConfig config, SigningIdentity identity, CertificateResource document,
            ObjectMapper json, Vertx vertx) {
        this.config = config;
        this.identity = identity;
        this.document = document;
        this.json = json;
        this.vertx = vertx;
    }

    void start(@Observes StartupEvent event) throws Exception {
        if (config.localHttps().port().isEmpty()) {
            return;
        }
        int port = config.localHttps().port().get();
        SigningIdentity.Current c = identity.current();
        String body = json.writeValueAsString(document.certificate());
        PemKeyCertOptions keyCert = new PemKeyCertOptions().setKeyValue(Buffer.buffer(Pem.toPem(c.key())))
                .setCertValue(Buffer.buffer(c.chainPem()));
        server = vertx.createHttpServer(new HttpServerOptions().setSsl(true).setKeyCertOptions(keyCert)
                .setHost("127.0.0.1").setPort(port)).requestHandler(req -> {
                    if (!"GET".equals(req.method().name()) || !PATH.equals(req.path())) {
                        req.response().setStatusCode(404).end();
                        return;
                    }
                    req.response().putHeader("Content-Type", "application/json").end(body);
                });
        server.listen().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        LOG.infof("Local HTTPS listener for the hook certificate on https://127.0.0.1:%d%s (hook.local-https.port;"
                + " a seam for local runs)", port, PATH);
    }

    @PreDestroy
    void stop() {
        if (server != null) {
            server.close();
        }
    }
}
