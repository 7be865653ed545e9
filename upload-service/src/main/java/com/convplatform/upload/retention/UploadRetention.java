package com.convplatform.upload.retention;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import javax.sql.DataSource;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;

import org.jboss.logging.Logger;

import com.convplatform.support.DailyPartitions;
import com.convplatform.support.Retention;
import com.convplatform.upload.config.UploadConfig;
import com.convplatform.upload.handoff.OutboxRepository;
import com.convplatform.upload.storage.FileStore;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;

/**
 * upload-service's retention (README, Retention): messages are dropped a day partition at a time once past
 * {@code upload.retention.period}, their stored files deleted first (local directory or bucket alike; a file already
 * gone counts as deleted). A day whose events still wait in the outbox for hook-service is kept until they are handed
 * on. Also vacuums the outbox table.
 */
@ApplicationScoped
public class UploadRetention {
    private static final Logger LOG = Logger.getLogger(UploadRetention.class);
    private final Retention retention;
    private final FileStore store;
    private final DataSource dataSource;
    private final UploadConfig config;
    private final OutboxRepository outbox;
    private final Counter filesDeleted;
    private final Clock clock;

    public UploadRetention(DataSource dataSource, Clock clock, MeterRegistry metrics, UploadConfig config,
            FileStore store, OutboxRepository outbox) {
        this.dataSource = dataSource;
        this.clock = clock;
        this.store = store;
        this.config = config;
        this.outbox = outbox;
        this.filesDeleted = Counter.builder("retention.files.deleted")
                .description("Stored files deleted with their messages' partitions").register(metrics);
        this.retention = new Retention("upload-service", dataSource, clock, metrics, config.retention().period(),
                List.of(new Retention.Table(new DailyPartitions("message"), this::deleteFiles)), this::afterDrops);
    }

    /** The partitions of the coming week exist before any message is logged. */
    void atStart(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE + 1) StartupEvent event) {
        ensurePartitions();
    }

    /** Makes the partitions from yesterday to a week ahead that do not exist. */
    public void ensurePartitions() {
        retention.ensurePartitions();
    }

    @Scheduled(every = "${upload.retention.interval}", delayed = "1m", concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void run() {
        retention.run();
    }

    /** A run as if it were {@code now}: what the scheduled run does (tests move the time). */
    public Retention.Report runAt(Instant now) {
        return retention.runAt(now);
    }

    @Scheduled(every = "${upload.outbox.vacuum-interval}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void vacuum() {
        if (config.outbox().vacuum()) {
            outbox.vacuum();
        }
    }

    /**
     * After the drops: the quotas' old days, and the files that no kept message can name: stored files made over a day
     * before the oldest day of messages kept (a crash between storing a file and committing its message leaves one no
     * partition lists), and the form's temporary files that a crash left in {@code <upload.data-dir>/incoming}, a day
     * after they were written (an upload's body may take 2 minutes).
     */
    private void afterDrops(Connection c, Instant cutoff) throws SQLException {
        dropOldUsage(c, cutoff);
        DailyPartitions.Partition oldest = new DailyPartitions("message").list(c).stream()
                .min(Comparator.comparing(DailyPartitions.Partition::day)).orElse(null);
        try {
            int stored = oldest == null ? 0 : store.deleteMadeBefore(oldest.from().minus(Duration.ofDays(1)));
            int incoming = deleteOlderThan(Path.of(config.dataDir(), "incoming"),
                    clock.instant().minus(Duration.ofDays(1)));
            if (stored + incoming > 0) {
                LOG.infof("Retention deleted %d stored files that no message names and %d temporary files left by"
                        + " uploads that did not finish", stored, incoming);
            }
        } catch (IOException e) {
            LOG.warnf("Retention could not delete files that no message names (%s); the next run tries again",
                    e.toString());
        }
    }

    private static int deleteOlderThan(Path dir, Instant before) throws IOException {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        int deleted = 0;
        try (var files = Files.newDirectoryStream(dir, Files::isRegularFile)) {
            for (Path f : files) {
                if (Files.getLastModifiedTime(f).toInstant().isBefore(before)
                        && Files.deleteIfExists(f)) {
                    deleted++;
                }
            }
        }
        return deleted;
    }

    /** The quotas' days past the period (UploadQuota): an account's usage is kept as long as its messages. */
    private static void dropOldUsage(Connection c, Instant cutoff) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("delete from upload_usage where day < ?")) {
            s.setObject(1, LocalDate.ofInstant(cutoff, ZoneOffset.UTC));
            s.executeUpdate();
        }
    }

    /** Deletes the partition's files; false (kept) while events of its messages wait in the outbox. */
    private boolean deleteFiles(Connection c, DailyPartitions.Partition p) throws SQLException {
        try (PreparedStatement waiting = c.prepareStatement("select count(*) from hook_outbox where stored_at >= ? and"
                + " stored_at < ?")) {
            waiting.setObject(1, OffsetDateTime.ofInstant(p.from(), ZoneOffset.UTC));
            waiting.setObject(2, OffsetDateTime.ofInstant(p.until(), ZoneOffset.UTC));
            try (ResultSet r = waiting.executeQuery()) {
                r.next();
                if (r.getLong(1) > 0) {
                    LOG.warnf("Retention keeps %s past upload.retention.period: %d of its messages' events still wait"
                            + " for hook-service (see upload_outbox_oldest_age_seconds)", p.name(), r.getLong(1));
                    return false;
                }
            }
        }
        List<String> files = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("select file_id from " + p.name());
                ResultSet r = s.executeQuery()) {
            while (r.next()) {
                files.add(r.getString(1));
            }
        }
        try {
            store.deleteAll(files);
        } catch (IOException e) {
            LOG.warnf("Retention keeps %s for now: deleting its files failed (%s); the next run tries again", p.name(),
                    e.getMessage());
            return false;
        }
        filesDeleted.increment(files.size());
        return true;
    }
}
