package com.convplatform.hook.retention;

import java.sql.PreparedStatement;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;

import javax.sql.DataSource;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;

import com.convplatform.hook.config.HookConfig;
import com.convplatform.hook.delivery.DeliveryStore;
import com.convplatform.support.Retention;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;

/**
 * hook-service's retention (README, Retention): the history of finished deliveries and the attempt log are dropped a
 * day partition at a time once past {@code hook.retention.period}, with the dead letters and hourly counts of that
 * time; unfinished deliveries live in the queue and are never touched. Also vacuums the queue table.
 */
@ApplicationScoped
public class HookRetention {
    private final Retention retention;
    private final DeliveryStore store;
    private final DataSource dataSource;
    private final HookConfig config;

    public HookRetention(DataSource dataSource, Clock clock, MeterRegistry metrics, HookConfig config,
            DeliveryStore store) {
        this.dataSource = dataSource;
        this.store = store;
        this.config = config;
        this.retention = new Retention("hook-service", dataSource, clock, metrics, config.retention().period(),
                List.of(Retention.Table.of("delivery_history"), Retention.Table.of("delivery_attempt")),
                (c, cutoff) -> {
                    OffsetDateTime at = OffsetDateTime.ofInstant(cutoff, ZoneOffset.UTC);
                    for (String sql : List.of("delete from dead_letter where finished_at < ?",
                            "delete from delivery_stats where hour < ?")) {
                        try (PreparedStatement s = c.prepareStatement(sql)) {
                            s.setObject(1, at);
                            s.executeUpdate();
                        }
                    }
                });
    }

    /** The partitions of the coming week exist before any row is written. */
    void atStart(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE + 1) StartupEvent event) {
        ensurePartitions();
    }

    /** Makes the partitions from yesterday to a week ahead that do not exist. */
    public void ensurePartitions() {
        retention.ensurePartitions();
    }

    @Scheduled(every = "${hook.retention.interval}", delayed = "1m", concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void run() {
        retention.run();
    }

    /** A run as if it were {@code now}: what the scheduled run does (tests move the time). */
    public Retention.Report runAt(Instant now) {
        return retention.runAt(now);
    }

    @Scheduled(every = "${hook.delivery.vacuum-interval}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void vacuum() {
        if (config.delivery().vacuum()) {
            store.queue().vacuum(dataSource);
        }
    }
}
