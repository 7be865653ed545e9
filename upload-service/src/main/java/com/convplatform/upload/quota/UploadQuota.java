package com.convplatform.upload.quota;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

import javax.sql.DataSource;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import com.convplatform.support.ApiException;
import com.convplatform.support.CommitDeadline;
import com.convplatform.support.GroupCommit;
import com.convplatform.upload.config.UploadConfig;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Per-account upload quotas (README, Quotas): bytes a UTC day and uploads a minute. An upload reserves its declared
 * length (the body limit when it declares none) and one upload of the minute in a statement, before its body is read,
 * so that every replica counts against the same row and nothing over the quota is ever read; what an upload did not
 * use (refused, failed, or shorter than reserved) is given back when it has been answered. The reservations that arrive
 * together share one transaction ({@link GroupCommit}), and an account's share one statement when together they fit:
 * with one statement and one transaction per upload, the quota cost an upload of 100 KB about a third of the service's
 * rate in the load test (1,516-1,779 uploads/s with it, 2,203-2,342 without; docs/capacity.md).
 */
@ApplicationScoped
public class UploadQuota {
    private static final Logger LOG = Logger.getLogger(UploadQuota.class);
    /**
     * The account's row is one row that every upload of the account updates: with the commit waiting for its WAL to
     * reach the disk, the row's lock is held for that flush and the account's uploads pass one flush at a time (about
     * 550 uploads/s here, against 2,000 without the quota). Its transactions commit without that wait, set in the same
     * round trip as the statement; a crash of PostgreSQL can lose the last fraction of a second of counts (the account
     * may upload that much more that day).
     */
    private static final String RELAXED = "set local synchronous_commit = off; ";
    private static final String RESERVE = RELAXED
            + "insert into upload_usage as u (account_id, day, bytes, uploads, minute,"
            + " minute_uploads) values (?, ?, ?, ?, ?, ?) on conflict (account_id, day) do update set"
            + " bytes = u.bytes + excluded.bytes, uploads = u.uploads + excluded.uploads,"
            + " minute_uploads = case when u.minute = excluded.minute"
            + " then u.minute_uploads + excluded.minute_uploads else excluded.minute_uploads end,"
            + " minute = excluded.minute where u.bytes <= ? - excluded.bytes"
            + " and (u.minute <> excluded.minute or u.minute_uploads <= ? - excluded.minute_uploads)"
            + " returning bytes";
    private static final String USAGE = "select bytes, minute, minute_uploads from upload_usage where account_id = ?"
            + " and day = ?";
    private static final String GIVE_BACK = "update upload_usage set bytes = greatest(bytes - ?, 0) where account_id = ?"
            + " and day = ?";

    /** What an upload reserved: given back in part or in full once it is answered. */
    public record Reservation(String account, LocalDate day, long bytes) {
    }

    /** Bytes of a reservation its upload did not use. */
    record Unused(Reservation reservation, long bytes) {
    }

    /** An upload's request for its reservation. */
    record Ask(String account, long bytes, boolean declared) {
    }

    /** An ask's answer: its reservation, or the refusal and the counter it counts in once its batch is committed. */
    record Answer(Reservation reservation, ApiException refusal, Counter refusals) {
    }

    private final DataSource dataSource;
    private final Clock clock;
    private final UploadConfig.Quota config;
    private final Counter refusedBytes;
    private final Counter refusedRate;
    private final CommitDeadline deadline;
    private GroupCommit<Ask, Answer> reservations;
    /** Give-backs, written together on a thread of their own: no upload's thread waits on the database for them. */
    private GroupCommit<Unused, Void> givingBack;

    public UploadQuota(DataSource dataSource, Clock clock, UploadConfig config, MeterRegistry metrics,
            CommitDeadline deadline) {
        this.dataSource = dataSource;
        this.deadline = deadline;
        this.clock = clock;
        this.config = config.quota();
        this.refusedBytes = Counter.builder("upload.quota.refusals").tag("quota", "bytes-per-day")
                .description("Uploads refused because their account reached a quota").register(metrics);
        this.refusedRate = Counter.builder("upload.quota.refusals").tag("quota", "uploads-per-minute")
                .description("Uploads refused because their account reached a quota").register(metrics);
    }

    /** Whether any quota is set: without, no upload costs a statement. */
    public boolean enabled() {
        return config.bytesPerDay() > 0 || config.uploadsPerMinute() > 0;
    }

    @PostConstruct
    void start() {
        if (enabled()) {
            reservations = new GroupCommit<>("upload-quota", 64, deadline.get(), this::reserveAll);
            givingBack = GroupCommit.ofWrites("upload-quota-give-back", 64, this::giveBackAll);
        }
    }

    /** Stops the quota's writer: from then on every reservation is refused (the replica is stopping). */
    @PreDestroy
    public void stop() {
        if (reservations != null) {
            reservations.close();
            givingBack.close(); // writes the give-backs still queued
        }
    }

    /**
     * Reserves {@code bytes} and one upload of this minute for the account; fails with 429 QUOTA_EXCEEDED and the
     * seconds until the quota that was reached lets the upload through, or with the database's failure. Completes on
     * the quota's writer thread.
     */
    public CompletableFuture<Reservation> reserve(String account, long bytes, boolean declared) {
        long maxBytes = maxBytes();
        if (bytes > maxBytes) {
            refusedBytes.increment();
            return CompletableFuture.failedFuture(new ApiException(429, "QUOTA_EXCEEDED", declared
                    ? "This upload (" + bytes + " bytes) is larger than your account's daily upload quota of "
                            + maxBytes + " bytes"
                    : "This upload declares no length (Content-Length), so it counts as " + bytes + " bytes, the most"
                            + " an upload may be, until it has been read: more than your account's daily upload quota"
                            + " of " + maxBytes + " bytes; send it with its length",
                    secondsToNextDay(clock.instant())));
        }
        // a writer that stopped (the service is stopping) fails the ask: answered as the database's failure, 503
        CompletableFuture<Reservation> reserved = new CompletableFuture<>();
        reservations.queue(new Ask(account, bytes, declared)).whenComplete((answer, failure) -> {
            if (failure != null) {
                reserved.completeExceptionally(failure);
            } else if (answer.refusal() != null) {
                reserved.completeExceptionally(answer.refusal());
            } else {
                reserved.complete(answer.reservation());
            }
        });
        return reserved;
    }

    /**
     * One transaction for the asks that arrived together: an account's asks in one statement when together they fit
     * its quotas, else one by one in their order, so that what is granted is what asking one at a time would grant.
     * Accounts in the order of their ids, so that two replicas' batches lock their rows in the same order.
     */
    List<Answer> reserveAll(List<Ask> asks) {
        Instant now = clock.instant();
        LocalDate day = LocalDate.ofInstant(now, ZoneOffset.UTC);
        Instant minute = now.truncatedTo(ChronoUnit.MINUTES);
        long maxBytes = maxBytes();
        int perMinute = config.uploadsPerMinute() > 0 ? config.uploadsPerMinute() : Integer.MAX_VALUE;
        Map<String, List<Integer>> byAccount = new TreeMap<>();
        for (int i = 0; i < asks.size(); i++) {
            byAccount.computeIfAbsent(asks.get(i).account(), a -> new ArrayList<>()).add(i);
        }
        Answer[] answers = new Answer[asks.size()];
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                for (Map.Entry<String, List<Integer>> account : byAccount.entrySet()) {
                    List<Integer> mine = account.getValue();
                    long bytes = mine.stream().mapToLong(i -> asks.get(i).bytes()).sum();
                    boolean together = mine.size() > 1 && bytes <= maxBytes && mine.size() <= perMinute
                            && reserve(c, account.getKey(), day, minute, bytes, mine.size(), maxBytes, perMinute);
                    for (int i : mine) {
                        Ask ask = asks.get(i);
                        answers[i] = together || reserve(c, ask.account(), day, minute, ask.bytes(), 1, maxBytes,
                                perMinute)
                                        ? new Answer(new Reservation(ask.account(), day, ask.bytes()), null, null)
                                        : refusal(c, ask, day, minute, maxBytes, perMinute, now);
                    }
                }
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(autoCommit);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("The upload quota could not be checked", e);
        }
        for (Answer answer : answers) {
            if (answer.refusals() != null) {
                answer.refusals().increment();
            }
        }
        return Arrays.asList(answers);
    }

    /** Adds {@code bytes} and {@code uploads} to the account's day and minute if both stay within the quotas. */
    private static boolean reserve(Connection c, String account, LocalDate day, Instant minute, long bytes, int uploads,
            long maxBytes, int perMinute) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(RESERVE)) {
            s.setString(1, account);
            s.setObject(2, day);
            s.setLong(3, bytes);
            s.setInt(4, uploads);
            s.setTimestamp(5, Timestamp.from(minute));
            s.setInt(6, uploads);
            s.setLong(7, maxBytes);
            s.setInt(8, perMinute);
            return returnedRow(s);
        }
    }

    private long maxBytes() {
        return config.bytesPerDay() > 0 ? config.bytesPerDay() : Long.MAX_VALUE;
    }

    private Answer refusal(Connection c, Ask ask, LocalDate day, Instant minute, long maxBytes, int perMinute,
            Instant now) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(USAGE)) {
            s.setString(1, ask.account());
            s.setObject(2, day);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                long used = r.getLong(1);
                if (r.getTimestamp(2).toInstant().equals(minute) && r.getInt(3) >= perMinute) {
                    return new Answer(null, new ApiException(429, "QUOTA_EXCEEDED", "Your account has started "
                            + perMinute + " uploads this minute, its quota; send this one again when the minute is"
                            + " over", (int) Math.max(1, ChronoUnit.SECONDS.between(now, minute.plusSeconds(60)) + 1)),
                            refusedRate);
                }
                return new Answer(null, new ApiException(429, "QUOTA_EXCEEDED", "Your account has uploaded " + used
                        + " of its " + maxBytes + " bytes today (UTC), and this upload " + (ask.declared()
                                ? "declares " + ask.bytes()
                                : "declares no length, so it counts as " + ask.bytes()
                                        + " (the most an upload may be)")
                        + "; the quota starts again at 00:00 UTC", secondsToNextDay(now)), refusedBytes);
            }
        }
    }

    /** Whether the statement, after its leading {@code set local}, returned a row. */
    private static boolean returnedRow(PreparedStatement s) throws SQLException {
        for (boolean rows = s.execute(); rows || s.getUpdateCount() != -1; rows = s.getMoreResults()) {
            if (rows) {
                try (ResultSet r = s.getResultSet()) {
                    return r.next();
                }
            }
        }
        throw new SQLException("The quota's reservation returned no result");
    }

    /** The account's use of its quotas today. Blocking. */
    public QuotaAdminResource.QuotaUse use(String account) {
        Instant now = clock.instant();
        LocalDate day = LocalDate.ofInstant(now, ZoneOffset.UTC);
        try (Connection c = dataSource.getConnection();
                PreparedStatement s = c.prepareStatement("select bytes,"
                        + " uploads, minute, minute_uploads from upload_usage where account_id = ? and day = ?")) {
            s.setString(1, account);
            s.setObject(2, day);
            try (ResultSet r = s.executeQuery()) {
                boolean found = r.next();
                long thisMinute = found && r.getTimestamp(3).toInstant().equals(now.truncatedTo(ChronoUnit.MINUTES))
                        ? r.getInt(4)
                        : 0;
                return new QuotaAdminResource.QuotaUse(account, day.toString(), found ? r.getLong(1) : 0,
                        config.bytesPerDay(), found ? r.getLong(2) : 0, thisMinute, config.uploadsPerMinute());
            }
        } catch (SQLException e) {
            throw new IllegalStateException("The upload quota could not be read", e);
        }
    }

    /**
     * Gives back {@code unused} bytes of the reservation, without waiting: queued and written with the give-backs of
     * other uploads in one transaction. A database that does not answer holds only the give-back's own thread, and the
     * give-backs wait for it (a stopping replica writes those still queued); one that refuses them is warned of, and
     * those bytes count until the day ends.
     */
    public void giveBack(Reservation reservation, long unused) {
        if (unused > 0) {
            givingBack.queue(new Unused(reservation, unused)).whenComplete((written, failure) -> {
                if (failure != null) { // the replica stopped before this upload ended
                    LOG.warnf("%d bytes of account %s's upload quota were not given back (%s); they count until the"
                            + " day ends", unused, reservation.account(), failure.getMessage());
                }
            });
        }
    }

    private void giveBackAll(List<Unused> unused) {
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try (Statement relaxed = c.createStatement(); PreparedStatement s = c.prepareStatement(GIVE_BACK)) {
                relaxed.execute(RELAXED);
                for (Unused u : unused) {
                    s.setLong(1, u.bytes());
                    s.setString(2, u.reservation().account());
                    s.setObject(3, u.reservation().day());
                    s.addBatch();
                }
                s.executeBatch();
                c.commit();
            } catch (SQLException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(autoCommit);
            }
        } catch (SQLException e) {
            LOG.warnf(e, "%d give-backs of upload quota (%d bytes in all) could not be written; those bytes count"
                    + " until the day ends", unused.size(), unused.stream().mapToLong(Unused::bytes).sum());
        }
    }

    private static int secondsToNextDay(Instant now) {
        Instant midnight = LocalDate.ofInstant(now, ZoneOffset.UTC).plusDays(1).atStartOfDay(ZoneOffset.UTC)
                .toInstant();
        return (int) Math.max(1, ChronoUnit.SECONDS.between(now, midnight) + 1);
    }
}
