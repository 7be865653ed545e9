package com.convplatform.upload.erasure;

import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import com.convplatform.support.LocalTransaction;
import com.convplatform.support.RepeatedFailures;
import com.convplatform.support.Sha256;
import com.convplatform.support.TimeOrderedIds;
import com.convplatform.upload.config.UploadConfig;
import com.convplatform.upload.storage.FileStore;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduled;

/**
 * The erasure of one upload user (a privacy request; README, Erasure): their registration, every message they uploaded
 * with its stored file and its event still waiting in the outbox, and, at hook-service, every delivery of those
 * messages. Each erasure is recorded in {@code erasure} (who asked, when, what it removed), with the user's auth_id
 * only as its SHA-256, at every moment. The registration goes first, so no new upload of the user is taken; the messages found are
 * removed, then looked for again (an upload under way when the registration went may commit just after). hook-service
 * is asked twice: at once, and again {@code upload.erasure.second-pass-after} later (two outbox leases), for an event
 * that was on its way to it meanwhile; a pass that fails is tried again every {@code upload.erasure.retry-after}.
 */
@ApplicationScoped
public class Erasures {
    private static final Logger LOG = Logger.getLogger(Erasures.class);

    /** One erasure as recorded. */
    public record Record(String id, String businessId, String authIdSha256, String requestedBy, Instant requestedAt,
            int messages, int files, int outboxEvents, int hookRows, int hookPasses, Instant completedAt,
            String lastError) {
    }

    /** What is still to do after the first removal: the user's messages' ids by account. */
    @io.quarkus.runtime.annotations.RegisterForReflection
    record Pending(Map<String, List<Long>> messages) {
    }

    private final DataSource dataSource;
    private final Clock clock;
    private final FileStore store;
    private final HookErasures hook;
    private final ObjectMapper json;
    private final Duration secondPass;
    private final Duration retryAfter;
    private final Counter failedPasses;
    private final RepeatedFailures failedChecks;
    private final Duration checkInterval;

    public Erasures(DataSource dataSource, Clock clock, FileStore store, HookErasures hook, ObjectMapper json,
            UploadConfig config, MeterRegistry metrics) {
        this.failedPasses = Counter.builder("upload.erasure.pass.failures").description("Erasure passes that failed"
                + " (hook-service, the store or the database); each is tried again after upload.erasure.retry-after")
                .register(metrics);
        this.failedChecks = new RepeatedFailures(LOG, "Looking for erasures to go on with", Counter.builder(
                "upload.erasure.check.failures").description(
                        "Looks for erasures due a pass that failed (the database"
                                + " out of reach): their passes wait meanwhile")
                .register(metrics));
        this.checkInterval = config.erasure().checkInterval();
        this.secondPass = config.erasure().secondPassAfter();
        this.retryAfter = config.erasure().retryAfter();
        this.dataSource = dataSource;
        this.clock = clock;
        this.store = store;
        this.hook = hook;
        this.json = json;
    }

    /** Thrown when stored files could not be deleted: the erasure is recorded with what it removed, and goes on. */
    public static final class Incomplete extends IOException {
        public final String erasureId;

        Incomplete(String erasureId, IOException cause) {
            super(cause.getMessage(), cause);
            this.erasureId = erasureId;
        }
    }

    /**
     * Erases the user now and records it; hook-service's first pass is made before this returns (its failure is
     * recorded and tried again later). The record is written with the registration's removal, before anything else,
     * and each round of messages removed is added to it in the round's own transaction, so that a failure or a crash
     * part-way leaves a record of what is gone, and its passes (due {@code upload.erasure.retry-after} later) go on
     * from there. Throws {@link Incomplete} when stored files could not be deleted; the passes try them again.
     */
    public Record erase(String businessId, String authId, String requestedBy) throws IOException {
        Instant now = clock.instant();
        String id = TimeOrderedIds.next();
        int users = LocalTransaction.run(dataSource, "Recording the erasure", c -> {
            update(c, "insert into erasure (id, business_id, auth_id_sha256, requested_by, requested_at, messages,"
                    + " files, outbox_events, pending_messages, next_pass_at) values (?, ?, ?, ?, ?, 0, 0, 0, ?, ?)",
                    UUID.fromString(id), businessId, sha256(authId), requestedBy, utc(now),
                    write(new Pending(new TreeMap<>())), utc(now.plus(retryAfter)));
            return update(c, "delete from app_user where business_id = ? and auth_id = ?", businessId, authId);
        });
        Removed removed;
        try {
            removed = removeMessages(id, businessId, "auth_id = ?", authId);
        } catch (IOException e) {
            LOG.warnf("Erasure %s by %s: stored files could not be deleted (%s); its passes try again every %s", id,
                    requestedBy, e.getMessage(), retryAfter);
            throw new Incomplete(id, e);
        }
        LOG.infof("Erasure %s by %s: business %s, user %s (SHA-256), %d registration, %d messages, %d files, %d"
                + " outbox events removed", id, requestedBy, businessId, sha256(authId), users, removed.count(),
                removed.files(), removed.outboxEvents());
        LocalTransaction.run(dataSource, "Starting an erasure's passes",
                c -> update(c, "update erasure set next_pass_at = ? where id = ?", utc(now), UUID.fromString(id)));
        pass(id);
        return find(id).orElseThrow();
    }

    /** The messages removed so far, their files, their outbox events, and their ids by account. */
    record Removed(int count, int files, int outboxEvents, Map<String, List<Long>> messages) {
    }

    /**
     * Removes the business's messages whose auth_id matches ({@code auth_id = ?}, or by its hash on a later pass: the
     * record keeps no auth_id), their files first, until none is left (at most three rounds). Each round's messages are
     * added to the erasure's record (its counts, and their ids for hook-service) in the transaction that removes them.
     */
    private Removed removeMessages(String erasureId, String businessId, String match, String authId)
            throws IOException {
        Map<String, List<Long>> all = new TreeMap<>();
        int count = 0;
        int files = 0;
        int outbox = 0;
        for (int round = 0; round < 3; round++) {
            Map<String, List<Long>> found = new TreeMap<>();
            List<String> fileIds = new ArrayList<>();
            LocalTransaction.run(dataSource, "Finding the user's messages", c -> {
                try (PreparedStatement s = c.prepareStatement("select account_id, message_id, file_id from message"
                        + " where business_id = ? and " + match)) {
                    LocalTransaction.bind(s, businessId, authId);
                    try (ResultSet r = s.executeQuery()) {
                        while (r.next()) {
                            found.computeIfAbsent(r.getString(1), k -> new ArrayList<>()).add(r.getLong(2));
                            fileIds.add(r.getString(3));
                        }
                    }
                }
                return null;
            });
            if (found.isEmpty()) {
                break;
            }
            store.deleteAll(fileIds); // before the rows: should it fail, they still say which files to delete
            Long[] ids = found.values().stream().flatMap(List::stream).toArray(Long[]::new);
            int[] rows = LocalTransaction.run(dataSource, "Removing the user's messages", c -> {
                int events;
                int messages;
                try (PreparedStatement s = c.prepareStatement("delete from hook_outbox where message_id = any(?)")) {
                    s.setArray(1, c.createArrayOf("bigint", ids));
                    events = s.executeUpdate();
                }
                try (PreparedStatement s = c.prepareStatement("delete from message where business_id = ? and"
                        + " message_id = any(?)")) {
                    s.setString(1, businessId);
                    s.setArray(2, c.createArrayOf("bigint", ids));
                    messages = s.executeUpdate();
                }
                recordRemoved(c, erasureId, found, messages, fileIds.size(), events);
                return new int[]{messages, events};
            });
            count += rows[0];
            outbox += rows[1];
            files += fileIds.size();
            found.forEach((account, list) -> all.computeIfAbsent(account, k -> new ArrayList<>()).addAll(list));
        }
        return new Removed(count, files, outbox, all);
    }

    /** Adds a round's removals to the erasure's counts, and their ids to those hook-service is asked about. */
    private void recordRemoved(Connection c, String erasureId, Map<String, List<Long>> found, int messages, int files,
            int events) throws SQLException {
        Pending pending = pending(c, erasureId, " for update");
        found.forEach((account, list) -> pending.messages().computeIfAbsent(account, k -> new ArrayList<>())
                .addAll(list));
        update(c, "update erasure set messages = messages + ?, files = files + ?, outbox_events = outbox_events + ?,"
                + " pending_messages = ?, completed_at = null, next_pass_at = coalesce(next_pass_at, ?) where id = ?",
                messages, files, events, write(pending), utc(clock.instant()), UUID.fromString(erasureId));
    }

    /** Erasures whose next pass at hook-service is due. */
    @Scheduled(every = "${upload.erasure.check-interval}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void passes() {
        List<String> due;
        try {
            due = due();
            failedChecks.succeeded();
        } catch (RuntimeException e) {
            failedChecks.failed(e, "erasures due a pass wait until a look works, tried every " + checkInterval);
            return;
        }
        due.forEach(this::pass);
    }

    /** The ids of up to 100 erasures whose next pass is due, the longest due first. */
    private List<String> due() {
        return LocalTransaction.run(dataSource, "Finding erasures to go on with", c -> {
            List<String> ids = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement("select id from erasure where next_pass_at <= ? order by"
                    + " next_pass_at limit 100")) {
                s.setObject(1, utc(clock.instant()));
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        ids.add(r.getString(1));
                    }
                }
            }
            return ids;
        });
    }

    /**
     * One pass at hook-service (after looking again for messages of the user), claimed by moving the next pass on
     * first, so two replicas do not make the same pass at once.
     */
    void pass(String id) {
        Instant now = clock.instant();
        Optional<String> claimed = LocalTransaction.run(dataSource, "Taking an erasure's pass", c -> {
            try (PreparedStatement s = c.prepareStatement("update erasure set next_pass_at = ? where id = ? and"
                    + " next_pass_at <= ? returning pending_messages")) {
                LocalTransaction.bind(s, utc(now.plus(retryAfter)), UUID.fromString(id), utc(now));
                try (ResultSet r = s.executeQuery()) {
                    return r.next() ? Optional.ofNullable(r.getString(1)) : Optional.<String>empty();
                }
            }
        });
        if (claimed.isEmpty()) {
            return;
        }
        try {
            Record record = find(id).orElseThrow();
            removeMessages(id, record.businessId(), "encode(sha256(convert_to(auth_id, 'UTF8')), 'hex') = ?",
                    record.authIdSha256()); // stragglers: added to the record as they go
            Pending pending = LocalTransaction.run(dataSource, "Reading an erasure's messages",
                    c -> pending(c, id, ""));
            int rows = 0;
            for (Map.Entry<String, List<Long>> account : pending.messages().entrySet()) {
                List<Long> ids = account.getValue();
                for (int from = 0; from < ids.size(); from += 10_000) {
                    rows += hook.erase(account.getKey(), ids.subList(from, Math.min(ids.size(), from + 10_000)),
                            record.requestedBy());
                }
            }
            boolean last = record.hookPasses() + 1 >= 2;
            int hookRows = rows;
            LocalTransaction.run(dataSource, "Recording an erasure's pass", c -> update(c, "update erasure set"
                    + " hook_rows = hook_rows + ?, hook_passes = hook_passes + 1, last_error = null, next_pass_at = ?,"
                    + " completed_at = ?, pending_messages = case when ? then null else pending_messages end where"
                    + " id = ?", hookRows, last ? null : utc(clock.instant().plus(secondPass)),
                    last ? utc(clock.instant()) : null, last, UUID.fromString(id)));
        } catch (IOException | RuntimeException e) {
            failedPasses.increment();
            LOG.warnf("Erasure %s: a pass failed (%s); tried again in %s", id, e.getMessage(), retryAfter);
            String error = String.valueOf(e.getMessage());
            LocalTransaction.run(dataSource, "Recording an erasure's failed pass", c -> update(c, "update erasure set"
                    + " last_error = ? where id = ?", error.substring(0, Math.min(error.length(), 1000)),
                    UUID.fromString(id)));
        }
    }

    /** One erasure by its id. */
    public Optional<Record> find(String id) {
        UUID uuid;
        try {
            uuid = UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        List<Record> found = list("where id = ?", 1, uuid);
        return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
    }

    /** The erasures, newest first; of one business when given. */
    public List<Record> list(String businessId, String authId, int limit) {
        if (authId != null) {
            return list("where business_id = ? and auth_id_sha256 = ? order by requested_at desc", limit, businessId,
                    sha256(authId));
        }
        return businessId == null
                ? list("order by requested_at desc", limit)
                : list("where business_id = ? order by requested_at desc", limit, businessId);
    }

    private List<Record> list(String where, int limit, Object... args) {
        return LocalTransaction.run(dataSource, "Reading erasures", c -> {
            List<Record> out = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement("select id, business_id, auth_id_sha256, requested_by,"
                    + " requested_at, messages, files, outbox_events, hook_rows, hook_passes, completed_at, last_error"
                    + " from erasure " + where + " limit " + limit)) {
                LocalTransaction.bind(s, args);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        OffsetDateTime done = r.getObject(11, OffsetDateTime.class);
                        out.add(new Record(r.getString(1), r.getString(2), r.getString(3), r.getString(4),
                                r.getObject(5, OffsetDateTime.class).toInstant(), r.getInt(6), r.getInt(7),
                                r.getInt(8), r.getInt(9), r.getInt(10), done == null ? null : done.toInstant(),
                                r.getString(12)));
                    }
                }
            }
            return out;
        });
    }

    /** The SHA-256 of an auth_id, hex: how erasure records name the user. */
    public static String sha256(String authId) {
        return Sha256.hex(authId);
    }

    private String write(Pending p) {
        try {
            return json.writeValueAsString(p);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private Pending read(String stored) {
        try {
            Pending p = json.readValue(stored, new TypeReference<Pending>() {
            });
            return new Pending(new TreeMap<>(p.messages()));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("An erasure's pending messages are unreadable", e);
        }
    }

    /** The message ids the erasure's passes are to tell hook-service about; {@code lock} is added to the read. */
    private Pending pending(Connection c, String id, String lock) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("select pending_messages from erasure where id = ?" + lock)) {
            s.setObject(1, UUID.fromString(id));
            try (ResultSet r = s.executeQuery()) {
                return r.next() && r.getString(1) != null ? read(r.getString(1)) : new Pending(new TreeMap<>());
            }
        }
    }

    private static int update(Connection c, String sql, Object... args) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            return LocalTransaction.bind(s, args).executeUpdate();
        }
    }

    private static OffsetDateTime utc(Instant t) {
        return OffsetDateTime.ofInstant(t, ZoneOffset.UTC);
    }
}
