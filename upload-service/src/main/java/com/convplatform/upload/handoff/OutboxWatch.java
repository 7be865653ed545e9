package com.convplatform.upload.handoff;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import com.convplatform.support.WarningPace;
import com.convplatform.upload.config.UploadConfig;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import io.quarkus.scheduler.Scheduled;

/** Watches the outbox's oldest event: a gauge of its wait, and a warning once it exceeds stuck-after (README). */
@ApplicationScoped
@Startup // the gauge is there from the start
public class OutboxWatch {
    private static final Logger LOG = Logger.getLogger(OutboxWatch.class);

    private final OutboxRepository outbox;
    private final Clock clock;
    private final Duration stuckAfter;
    private final WarningPace warnings = new WarningPace(Duration.ofMinutes(1));
    private boolean stuck;
    private volatile OutboxRepository.Oldest sample;

    public OutboxWatch(OutboxRepository outbox, Clock clock, UploadConfig config, MeterRegistry metrics) {
        this.outbox = outbox;
        this.clock = clock;
        this.stuckAfter = config.outbox().stuckAfter();
        // sampled by each check, never read at a scrape: with the database out of reach a scrape would wait the pool's
        // acquisition time-out per gauge, past Prometheus' scrape time-out, and hide the counters that show the outage;
        // a failed check keeps the last sample, so the oldest event's wait goes on rising
        Gauge.builder("upload.outbox.pending", this, w -> w.sample == null ? Double.NaN : w.sample.count())
                .description("Logged messages not yet accepted by hook-service (sampled every"
                        + " upload.outbox.check-interval)")
                .register(metrics);
        Gauge.builder("upload.outbox.oldest.age", this,
                w -> w.sample == null ? Double.NaN : w.sample.age(w.clock.instant()).toMillis() / 1000.0)
                .baseUnit("seconds").description("How long the oldest event not yet accepted by hook-service has"
                        + " waited (0: the outbox is empty; sampled every upload.outbox.check-interval)")
                .register(metrics);
    }

    @Scheduled(every = "${upload.outbox.check-interval}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    synchronized void check() {
        Instant now = clock.instant();
        OutboxRepository.Oldest oldest;
        try {
            oldest = outbox.oldest();
            sample = oldest;
        } catch (RuntimeException e) {
            LOG.debugf("Outbox not checked: %s", e.getMessage()); // a database outage: readiness reports it
            return;
        }
        Duration age = oldest.age(now);
        if (age.compareTo(stuckAfter) <= 0) {
            if (stuck) {
                LOG.infof("The outbox moves again: %d events, the oldest waiting for %s", oldest.count(), age);
                stuck = false;
                warnings.reset(); // the next time it stops is news at once, however soon
            }
            return;
        }
        stuck = true;
        if (!warnings.tryWarn()) {
            return;
        }
        LOG.warnf("The outbox does not move: %d events not yet accepted by hook-service, the oldest waiting for %s"
                + " (upload.outbox.stuck-after %s; upload_outbox_oldest_age_seconds shows it)%s. Likely causes:"
                + " hook-service unreachable or failing (upload.hook-service.url), a wrong internal key"
                + " (upload.hook-service.internal-api-key, answered 401), or the events refused by hook-service;"
                + " upload_handoff_failed_total counts the failed posts", oldest.count(), age, stuckAfter,
                lastError(oldest.since()));
    }

    /** The oldest event's attempts and last error, as a clause of the warning. */
    private String lastError(Instant since) {
        try {
            return outbox.oldestFailure(since).map(f -> "; " + f.attempts() + " failed posts of it so far"
                    + (f.lastError() == null ? "" : ", last: " + f.lastError())).orElse("");
        } catch (RuntimeException e) {
            return "";
        }
    }
}
