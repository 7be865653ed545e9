package com.convplatform.upload.auth;

import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;
import org.eclipse.microprofile.rest.client.inject.RestClient;
import org.jboss.logging.Logger;

import com.convplatform.api.management.ManagementInternal.RevocationList;
import com.convplatform.api.management.ManagementInternal.Revoked;
import com.convplatform.upload.config.UploadConfig;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;

/**
 * What management-service has revoked (README, Revoked tokens): accounts and clients disabled, certificates revoked or
 * blocked, each with the time before which its tokens were issued. Read from management-service's
 * {@code GET /internal/v1/revocations} every {@code upload.revocations.refresh} (5 s) and checked for every upload,
 * a token remembered as verified included, so a revoked token stops working within that interval. If a download
 * fails, the list last read stays in use; its age is {@code upload_revocations_age_seconds}.
 */
@ApplicationScoped
public class Revocations {
    private static final Logger LOG = Logger.getLogger(Revocations.class);

    @RegisterRestClient(configKey = "management-internal")
    @Path("/internal/v1/revocations")
    public interface Source {
        @GET
        @Produces(MediaType.APPLICATION_JSON)
        RevocationList revocations(@HeaderParam("Authorization") String authorization);
    }

    private final Source source;
    private final String authorization;
    private final Clock clock;
    private final Counter failures;
    private volatile Map<String, Revoked> revoked = Map.of();
    private volatile Instant loadedAt;

    public Revocations(@RestClient Source source, UploadConfig config, Clock clock, MeterRegistry metrics) {
        this.source = source;
        this.authorization = "Bearer " + config.management().internalApiKey().orElse("");
        this.clock = clock;
        this.failures = Counter.builder("upload.revocations.refresh.failures")
                .description("Downloads of management-service's revocation list that failed").register(metrics);
        Gauge.builder("upload.revocations.age.seconds", this, r -> r.loadedAt == null
                ? Double.NaN
                : (clock.millis() - r.loadedAt.toEpochMilli()) / 1000.0)
                .description("How old the revocation list in use is (NaN until one was read)").register(metrics);
    }

    /** The first list, before the first upload; a failure is logged and the next refresh tries again. */
    void atStart(@Observes @Priority(Interceptor.Priority.APPLICATION + 100) StartupEvent event) {
        refresh();
    }

    @Scheduled(every = "${upload.revocations.refresh}", delayed = "${upload.revocations.refresh}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void refresh() {
        try {
            RevocationList answer = source.revocations(authorization);
            Map<String, Revoked> next = new HashMap<>();
            if (answer != null && answer.revoked() != null) {
                for (Revoked e : answer.revoked()) {
                    if (e.kind() != null && e.id() != null) {
                        next.put(key(e.kind(), e.id()), e);
                    }
                }
            }
            revoked = Map.copyOf(next);
            loadedAt = clock.instant();
        } catch (RuntimeException e) {
            failures.increment();
            LOG.warnf("The revocation list could not be read from management-service (%s); the one from %s stays in"
                    + " use", e.getMessage(), loadedAt == null ? "never: none is known yet" : loadedAt);
        }
    }

    /** Whether a token of this client, account and certificate, issued then, is revoked: the reason, or null. */
    public String revoked(String accountId, String clientId, String certSha256, long issuedAtSeconds) {
        Map<String, Revoked> now = revoked;
        if (now.isEmpty()) {
            return null;
        }
        Revoked e = now.get(key("account", accountId));
        if (e != null && covers(e, issuedAtSeconds)) {
            return "its account is " + (e.disabled() ? "disabled" : "revoked");
        }
        e = now.get(key("client", clientId));
        if (e != null && covers(e, issuedAtSeconds)) {
            return "its client is " + (e.disabled() ? "disabled" : "revoked");
        }
        e = certSha256 == null ? null : now.get(key("certificate", certSha256.toLowerCase(java.util.Locale.ROOT)));
        if (e != null && covers(e, issuedAtSeconds)) {
            return "the certificate it was issued to is revoked";
        }
        return null;
    }

    /** Whether an entry (disabled, or revoked for tokens issued before a time) covers a token issued then. */
    private static boolean covers(Revoked e, long issuedAtSeconds) {
        Instant before = e.tokensIssuedBefore();
        return e.disabled() || before == null || issuedAtSeconds < before.getEpochSecond()
                || issuedAtSeconds == before.getEpochSecond() && before.getNano() > 0;
    }

    private static String key(String kind, String id) {
        return kind + ' ' + (kind.equals("certificate") ? id.toLowerCase(java.util.Locale.ROOT) : id);
    }
}
