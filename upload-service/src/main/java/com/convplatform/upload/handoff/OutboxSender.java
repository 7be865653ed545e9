package com.convplatform.upload.handoff;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

import com.convplatform.support.RequestIds;
import com.convplatform.upload.config.UploadConfig;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduled;

/**
 * Hands each logged message on to hook-service's intake, from the outbox written with the message: when hook-service
 * is down the upload has still succeeded, and the event goes out once it is back (backoff 1 s doubling to 5 min).
 * At least once: hook-service accepts the same (account_id, message_id) only once.
 */
@ApplicationScoped
public class OutboxSender {
    private final UploadConfig config;
    private final Clock clock;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3))
            .followRedirects(HttpClient.Redirect.NEVER).build();

    public OutboxSender(UploadConfig config, Clock clock, MeterRegistry metrics) {
        this.config = config;
        this.clock = clock;
        Gauge.builder("upload.outbox.pending", this, OutboxSender::pending)
                .description("Logged messages not yet accepted by hook-service").register(metrics);
    }

    @Scheduled(every = "${upload.hook-service.poll-interval}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void send() {
        for (HookOutbox o : due()) {
            String error = null;
            HttpRequest request = RequestIds.passOn(HttpRequest.newBuilder(
                    URI.create(config.hookService().url() + "/internal/v1/events")).timeout(Duration.ofSeconds(10))
                    .header("Content-Type", "application/json")
                    .header("Authorization", "Bearer " + config.hookService().internalApiKey().orElse("")),
                    o.requestId).POST(HttpRequest.BodyPublishers.ofString(o.payload)).build();
            try {
                HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() < 200 || r.statusCode() >= 300) {
                    error = "hook-service answered " + r.statusCode();
                }
            } catch (java.io.IOException e) {
                error = "hook-service unreachable: " + e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            done(o.id, error);
        }
    }

    @Transactional
    List<HookOutbox> due() {
        return HookOutbox.<HookOutbox>find("sentAt is null and nextAttemptAt <= ?1 order by nextAttemptAt",
                clock.instant()).page(0, 50).list();
    }

    @Transactional
    void done(String id, String error) {
        HookOutbox o = HookOutbox.findById(id);
        Instant now = clock.instant();
        if (error == null) {
            o.sentAt = now;
            o.lastError = null;
        } else {
            o.attempts++;
            long wait = Math.min(300, 1L << Math.min(o.attempts - 1, 9));
            o.nextAttemptAt = now.plusSeconds(wait);
            o.lastError = error.length() > 1000 ? error.substring(0, 1000) : error;
        }
    }

    /** Events not yet accepted by hook-service. */
    public long pending() {
        return HookOutbox.count("sentAt is null");
    }
}
