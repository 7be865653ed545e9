package com.convplatform.upload.message;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import com.convplatform.support.ApiException;
import com.convplatform.support.GroupCommit;
import com.convplatform.support.LocalTransaction;
import com.convplatform.support.RequestIds;
import com.convplatform.support.SqlExists;
import com.convplatform.support.TimeOrderedIds;
import com.convplatform.upload.auth.TokenVerifier.Caller;
import com.convplatform.upload.config.UploadConfig;
import com.convplatform.upload.handoff.OutboxSender;
import com.convplatform.upload.storage.FileIds;
import com.convplatform.upload.storage.FileStore;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Spec 4.5: checks an upload in a fixed order (form, business and user, size, type and content), stores the file,
 * records the message and its hand-off event in one transaction, and answers with the spec 2.3 body. A refusal
 * leaves nothing behind: {@link IncomingForm} deletes the file part unless the store has taken it.
 */
@ApplicationScoped
public class UploadService {
    static final DateTimeFormatter CREATED_AT = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'")
            .withZone(ZoneOffset.UTC);
    private static final Pattern AUTH_ID = Pattern.compile("[A-Za-z0-9]{1,64}");
    private static final Pattern BUSINESS_ID = Pattern.compile("[0-9]{1,32}");
    private static final Pattern UNSAFE_NAME_CHARACTERS = Pattern.compile("[^A-Za-z0-9._-]");
    private static final Pattern UNDERSCORES = Pattern.compile("_+");
    private static final Pattern LEADING_DOTS = Pattern.compile("^[.]+");

    /**
     * The form as received; {@code head} is the file's first bytes (up to {@link FileTypes#HEAD_BYTES});
     * {@code whenMoved} is told when the store has moved {@code file} away, so its owner need not delete it.
     */
    public record Form(String fileId, String authId, String businessId, String messageType, Path file,
            String fileName, long size, String messageBody, byte[] head, Runnable whenMoved) {
    }

    /** The spec 2.3 answer. */
    public record Logged(long messageId, String messageBody, String createdAt, int messageType, String fileUrl) {
    }

    private final UploadConfig config;
    private final FileStore store;
    private final Clock clock;
    private final ObjectMapper json;
    private final MeterRegistry metrics;
    private final DataSource dataSource;
    private final OutboxSender handOff;
    private final Counter imageUploads;
    private final Counter documentUploads;
    private final Counter bytesStored;
    private GroupCommit<ToRecord, Recorded> writer;

    public UploadService(UploadConfig config, FileStore store, Clock clock, ObjectMapper json, MeterRegistry metrics,
            DataSource dataSource, OutboxSender handOff) {
        this.handOff = handOff;
        this.config = config;
        this.store = store;
        this.clock = clock;
        this.json = json;
        this.metrics = metrics;
        this.dataSource = dataSource;
        this.imageUploads = metrics.counter("upload.uploads", "message_type", String.valueOf(FileTypes.IMAGE));
        this.documentUploads = metrics.counter("upload.uploads", "message_type", String.valueOf(FileTypes.DOCUMENT));
        this.bytesStored = metrics.counter("upload.bytes.stored");
    }

    @PostConstruct
    void startWriter() {
        writer = new GroupCommit<>("upload-message-writer", 64, this::recordAll);
    }

    @PreDestroy
    void stopWriter() {
        writer.close();
    }

    /**
     * Checks the upload, stores its file and queues its message for the next group commit. The checks and the store
     * run on the calling thread (a refusal is thrown, counted); the result completes once the message is committed
     * (the writer thread completes it), or fails with the cause, and then the stored file has been removed again.
     */
    public CompletableFuture<Logged> upload(Caller caller, Form f) {
        ToRecord toRecord;
        try {
            toRecord = checkAndStore(caller, f);
        } catch (ApiException e) {
            throw refused(e);
        }
        CompletableFuture<Recorded> committed;
        try {
            committed = writer.submitAll(List.of(toRecord)).get(0);
        } catch (RuntimeException e) {
            removeStored(toRecord.fileId());
            throw e;
        }
        return committed.whenComplete((recorded, failure) -> {
            if (failure == null) {
                handOff.handOn(recorded.event());
                (toRecord.type() == FileTypes.IMAGE ? imageUploads : documentUploads).increment();
                bytesStored.increment(f.size());
            } else {
                removeStored(toRecord.fileId());
            }
        }).thenApply(Recorded::logged);
    }

    /** Removes a stored file whose message was not recorded (so nothing points at it); best effort. */
    private void removeStored(String fileId) {
        try {
            store.delete(fileId);
        } catch (IOException | RuntimeException ignored) {
            // left behind unreferenced; it is never served under a message
        }
    }

    /** A new file id (see {@link FileIds}): the file's name in the store and in its URL. */
    String newFileId() {
        return FileIds.next(clock);
    }

    /** Where the file of a new upload is written while it arrives (see {@link FileStore#incomingPath}). */
    Path partFile(String fileId, Path incomingDir) {
        return store.incomingPath(fileId, incomingDir);
    }

    /** Counts a refusal by its code; returns it to be thrown. */
    public ApiException refused(ApiException e) {
        metrics.counter("upload.refusals", "reason", e.code()).increment();
        return e;
    }

    private ToRecord checkAndStore(Caller caller, Form f) {
        if (f.authId() == null || !AUTH_ID.matcher(f.authId()).matches()) {
            throw bad("INVALID_AUTH_ID", "auth_id is required: 1 to 64 letters and digits");
        }
        if (f.businessId() == null || !BUSINESS_ID.matcher(f.businessId()).matches()) {
            throw bad("INVALID_BUSINESS_ID", "business_id is required: a string of digits");
        }
        int type;
        if ("1".equals(f.messageType())) {
            type = FileTypes.IMAGE;
        } else if ("52".equals(f.messageType())) {
            type = FileTypes.DOCUMENT;
        } else {
            throw bad("INVALID_MESSAGE_TYPE", "message_type must be 1 (image) or 52 (document)");
        }
        if (f.file() == null || f.size() == 0) {
            throw bad("MISSING_FILE", "file is required and may not be empty");
        }
        String body = f.messageBody() == null ? "" : f.messageBody();
        if (body.length() > config.maxMessageBody()) {
            throw bad("MESSAGE_BODY_TOO_LONG",
                    "message_body may be at most " + config.maxMessageBody() + " characters");
        }
        if (!f.businessId().equals(caller.businessId())) {
            throw new ApiException(403, "BUSINESS_NOT_ALLOWED",
                    "business_id " + f.businessId() + " does not belong to the account of this token");
        }
        if (!SqlExists.exists(dataSource, "the registered users",
                "select 1 from app_user where business_id = ? and auth_id = ?", f.businessId(), f.authId())) {
            throw new ApiException(403, "USER_NOT_REGISTERED",
                    "The user " + f.authId() + " is not registered for business " + f.businessId());
        }
        if (f.size() > config.maxFileBytes()) {
            throw new ApiException(413, "FILE_TOO_LARGE", "The file is larger than 10 MB");
        }
        String name = sanitise(f.fileName());
        String ext = FileTypes.extension(name);
        if (!FileTypes.allowedFor(type, ext)) {
            throw new ApiException(415, "UNSUPPORTED_FILE_TYPE", "A " + (type == 1 ? "image" : "document")
                    + " must be one of " + (type == 1 ? "jpg, jpeg, png, gif" : "docx, doc, xls, xlsx, csv")
                    + "; got '" + (ext.isEmpty() ? "no extension" : ext) + "'");
        }
        try {
            if (!FileTypes.contentMatches(ext, f.head(), f.file())) {
                throw new ApiException(415, "CONTENT_MISMATCH",
                        "The file's content is not a ." + ext + " file; send the file under its real type");
            }
        } catch (IOException e) {
            throw bad("UNREADABLE_FILE", "The uploaded file could not be read");
        }
        String fileId = f.fileId();
        try {
            if (store.put(fileId, f.file())) {
                f.whenMoved().run();
            }
        } catch (IOException e) {
            throw new IllegalStateException("Storing the file failed", e);
        }
        return new ToRecord(caller, f, type, body, fileId, name, FileTypes.CONTENT_TYPES.get(ext),
                RequestIds.current());
    }

    /** A recorded upload: its answer, and its hand-off event for {@link OutboxSender#handOn}. */
    record Recorded(Logged logged, OutboxSender.Claimed event) {
    }

    /** A checked and stored upload, to be recorded as a message with its hand-off event. */
    record ToRecord(Caller caller, Form form, int type, String body, String fileId, String name, String contentType,
            String requestId) {
        /** The message row (not yet with its id). */
        Message toMessage(Instant createdAt) {
            Message m = new Message();
            m.accountId = caller.accountId();
            m.clientId = caller.clientId();
            m.businessId = form.businessId();
            m.authId = form.authId();
            m.messageType = type;
            m.messageBody = body;
            m.fileId = fileId;
            m.fileName = name;
            m.contentType = contentType;
            m.sizeBytes = form.size();
            m.createdAt = createdAt;
            return m;
        }
    }

    private static final String INSERT_MESSAGE = "insert into message (account_id, client_id, business_id, auth_id,"
            + " message_type, message_body, file_id, file_name, content_type, size_bytes, created_at)"
            + " values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    private static final String INSERT_OUTBOX = "insert into hook_outbox (id, message_id, payload, request_id,"
            + " attempts, next_attempt_at, claim_token) values (?, ?, ?, ?, 0, ?, ?)";

    /**
     * Records each upload's message and hand-off event; uploads that finish together share one transaction (all or
     * none, see {@link GroupCommit}). Plain JDBC in a {@link LocalTransaction}: the message inserts (each returns its
     * id) and one batch of outbox inserts. Through Hibernate these took most of the writer thread's time, and the
     * writer is one thread for all uploads; a JTA transaction around them took a seventh of what was left.
     */
    List<Recorded> recordAll(List<ToRecord> uploads) {
        return LocalTransaction.run(dataSource, "Recording the uploads", c -> insertAll(c, uploads));
    }

    private List<Recorded> insertAll(Connection c, List<ToRecord> uploads) throws SQLException {
        List<Recorded> out = new ArrayList<>(uploads.size());
        try (PreparedStatement message = c.prepareStatement(INSERT_MESSAGE, Statement.RETURN_GENERATED_KEYS);
                PreparedStatement outbox = c.prepareStatement(INSERT_OUTBOX)) {
            for (ToRecord u : uploads) {
                Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
                Message m = u.toMessage(now);
                message.setString(1, m.accountId);
                message.setString(2, m.clientId);
                message.setString(3, m.businessId);
                message.setString(4, m.authId);
                message.setInt(5, m.messageType);
                message.setString(6, m.messageBody);
                message.setString(7, m.fileId);
                message.setString(8, m.fileName);
                message.setString(9, m.contentType);
                message.setLong(10, m.sizeBytes);
                message.setObject(11, OffsetDateTime.ofInstant(now, ZoneOffset.UTC));
                message.executeUpdate();
                try (ResultSet key = message.getGeneratedKeys()) {
                    if (!key.next()) {
                        throw new IllegalStateException("The database returned no message id");
                    }
                    m.messageId = key.getLong(1);
                }
                String fileUrl = config.publicBaseUrl() + "/files/" + m.fileId + "/" + m.fileName;
                OutboxSender.Claimed event = new OutboxSender.Claimed(TimeOrderedIds.next(),
                        event(m, fileUrl, u.requestId()), u.requestId());
                outbox.setString(1, event.id());
                outbox.setLong(2, m.messageId);
                outbox.setString(3, event.payload());
                outbox.setString(4, u.requestId());
                outbox.setObject(5, OffsetDateTime.ofInstant(now.plus(OutboxSender.LEASE), ZoneOffset.UTC));
                outbox.setString(6, handOff.ownClaim());
                outbox.addBatch();
                out.add(new Recorded(
                        new Logged(m.messageId, m.messageBody, CREATED_AT.format(now), m.messageType, fileUrl),
                        event));
            }
            outbox.executeBatch();
        }
        return out;
    }

    /** The hand-off event; its upload's request id first (see {@link OutboxSender#REQUEST_ID_FIRST}). */
    private String event(Message m, String fileUrl, String requestId) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("quick_replies", java.util.List.of());
        data.put("file_url", fileUrl);
        data.put("file_name", m.fileName);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("text", m.messageBody);
        body.put("type", m.messageType == FileTypes.IMAGE ? "IMAGE" : "DOCUMENT");
        body.put("data", data);
        Map<String, Object> metadata = new LinkedHashMap<>();
        metadata.put("business_id", m.businessId);
        metadata.put("message_type", m.messageType);
        metadata.put("file_url", fileUrl);
        metadata.put("content_type", m.contentType);
        metadata.put("size", m.sizeBytes);
        Map<String, Object> e = new LinkedHashMap<>();
        if (requestId != null) {
            e.put("request_id", requestId);
        }
        e.put("account_id", m.accountId);
        e.put("user_id", m.authId);
        e.put("conversation_number", 0);
        try {
            e.put("message_body", json.writeValueAsString(body));
            e.put("message_id", m.messageId);
            e.put("sender", "user");
            e.put("timestamp", CREATED_AT.format(m.createdAt));
            e.put("metadata", metadata);
            return json.writeValueAsString(e);
        } catch (JsonProcessingException ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** The last path segment, letters, digits, dot, dash and underscore only, at most 100 characters. */
    static String sanitise(String raw) {
        String name = raw == null ? "" : raw;
        int slash = Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\'));
        name = UNSAFE_NAME_CHARACTERS.matcher(name.substring(slash + 1)).replaceAll("_");
        name = LEADING_DOTS.matcher(UNDERSCORES.matcher(name).replaceAll("_")).replaceAll("");
        if (name.length() > 100) {
            String ext = FileTypes.extension(name);
            name = name.substring(0, 100 - ext.length() - 1) + "." + ext;
        }
        return name.isEmpty() ? "file" : name;
    }

    private static ApiException bad(String code, String message) {
        return new ApiException(400, code, message);
    }
}
