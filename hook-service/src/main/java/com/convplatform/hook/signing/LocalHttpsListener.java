package com.convplatform.hook.signing;

import java.util.concurrent.TimeUnit;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import com.convplatform.crypto.pem.Pem;
import com.convplatform.hook.config.HookConfig;
import com.convplatform.support.ApiError;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;

/** With {@code hook.local-https.port}: an HTTPS listener on 127.0.0.1 serving only the certificate document. */
@ApplicationScoped
class LocalHttpsListener {
    private static final Logger LOG = Logger.getLogger(LocalHttpsListener.class);

    private final HookConfig config;
    private final SigningIdentity identity;
    private HttpServer localHttps;

    LocalHttpsListener(HookConfig config, SigningIdentity identity) {
        this.config = config;
        this.identity = identity;
    }

    void start(@Observes StartupEvent event, ObjectMapper json, Vertx vertx) throws Exception {
        if (config.localHttpsPort().isEmpty()) {
            return;
        }
        String path = CertificateResource.PATH;
        String body = json.writeValueAsString(identity.document());
        String refusal = json.writeValueAsString(new ApiError("NOT_FOUND", "This listener serves only " + path));
        PemKeyCertOptions keyCert = new PemKeyCertOptions().setKeyValue(Buffer.buffer(Pem.toPem(identity.key())))
                .setCertValue(Buffer.buffer(identity.document().certificate()));
        localHttps = vertx.createHttpServer(new HttpServerOptions().setSsl(true).setKeyCertOptions(keyCert)
                .setHost("127.0.0.1").setPort(config.localHttpsPort().get())).requestHandler(req -> {
                    boolean document = "GET".equals(req.method().name()) && path.equals(req.path());
                    req.response().setStatusCode(document ? 200 : 404).putHeader("Content-Type", "application/json")
                            .end(document ? body : refusal);
                });
        localHttps.listen().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        LOG.infof("Local HTTPS listener for the hook certificate on https://127.0.0.1:%d%s (hook.local-https.port;"
                + " a seam for local runs)", config.localHttpsPort().get(), path);
    }

    @PreDestroy
    void stop() {
        if (localHttps != null) {
            localHttps.close();
        }
    }
}
