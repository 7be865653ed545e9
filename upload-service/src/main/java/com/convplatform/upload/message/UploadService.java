package com.convplatform.upload.message;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.regex.Pattern;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import com.convplatform.api.intake.FileMessage;
import com.convplatform.api.intake.IntakeEvent;
import com.convplatform.support.ApiException;
import com.convplatform.support.GroupCommit;
import com.convplatform.support.TraceContexts;
import com.convplatform.support.Workers;
import com.convplatform.upload.auth.TokenIdentityProvider.Caller;
import com.convplatform.upload.config.UploadConfig;
import com.convplatform.upload.handoff.Claimed;
import com.convplatform.upload.handoff.OutboxSender;
import com.convplatform.upload.storage.FileIds;
import com.convplatform.upload.storage.FileStore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Spec 4.5: checks an upload in the README's order, stores its file, records its message and hand-off event
 * ({@link MessageRepository}) and hands it on.
 */
@ApplicationScoped
public class UploadService {
    static final DateTimeFormatter CREATED_AT = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'")
            .withZone(ZoneOffset.UTC);
    private static final Pattern AUTH_ID = Pattern.compile("[A-Za-z0-9]{1,64}");
    static final String AUTH_ID_REQUIRED = "auth_id is required: 1 to 64 letters and digits";
    private static final Pattern BUSINESS_ID = Pattern.compile("[0-9]{1,32}");
    private static final Pattern UNSAFE_NAME_CHARACTERS = Pattern.compile("[^A-Za-z0-9.-]+");
    private static final Pattern LEADING_DOTS = Pattern.compile("^[.]+");

    @Schema(name = "UploadedFileMessage")
    public record Logged(@JsonProperty("message_id") @Schema(example = "12") long messageId,
            @JsonProperty("message_body") @Schema(example = "see attached") String messageBody,
            @JsonProperty("created_at") @Schema(example = "2026-11-22T15:40:00.123Z") String createdAt,
            @JsonProperty("message_type") @Schema(example = "1") int messageType,
            @JsonProperty("file_url") @Schema(example = "https://files.example.com/files/0193a5b2c4d6e8f00112233445566778899aabbccdd/holiday_photo.png") String fileUrl) {
    }

    private final UploadConfig config;
    private final MessageRepository messages;
    private final FileStore store;
    private final Clock clock;
    private final MeterRegistry metrics;
    private final OutboxSender handOff;
    private final ObjectMapper json;
    private final Counter imageUploads;
    private final Counter documentUploads;
    private final Counter bytesStored;
    private GroupCommit<ToRecord, Claimed> writer;

    UploadService(UploadConfig config, MessageRepository messages, FileStore store, Clock clock,
            MeterRegistry metrics, OutboxSender handOff, ObjectMapper json) {
        this.config = config;
        this.messages = messages;
        this.handOff = handOff;
        this.json = json;
        this.store = store;
        this.clock = clock;
        this.metrics = metrics;
        this.imageUploads = metrics.counter("upload.uploads", "message_type", String.valueOf(FileTypes.IMAGE));
        this.documentUploads = metrics.counter("upload.uploads", "message_type", String.valueOf(FileTypes.DOCUMENT));
        this.bytesStored = metrics.counter("upload.bytes.stored");
    }

    @PostConstruct
    void startWriter() {
        writer = new GroupCommit<>("upload-message-writer", 64,
                uploads -> messages.recordAll(uploads, (u, messageId, at) -> event(u, messageId, at, fileUrl(u))));
    }

    @PreDestroy
    void stopWriter() {
        writer.close();
    }

    /**
     * Checks and stores on a worker of the request's context (so its logs carry the request and trace ids), then
     * completes once the group commit has recorded the message; on failure no file is left in the store.
     */
    public CompletionStage<Logged> upload(Caller caller, UploadForm form, String requestId) {
        String traceparent = TraceContexts.current();
        return Workers.onWorker(() -> {
            try {
                return check(caller, form, requestId, traceparent);
            } catch (ApiException e) {
                throw refused(e);
            }
        }).thenCompose(this::record);
    }

    private CompletionStage<Logged> record(ToRecord toRecord) {
        CompletableFuture<Claimed> committed;
        try {
            committed = writer.submitAll(List.of(toRecord)).get(0);
        } catch (RuntimeException e) {
            removeStored(toRecord.fileId());
            throw e;
        }
        return committed.whenComplete((event, failure) -> {
            if (failure == null) {
                handOff.handOn(event);
                (toRecord.type() == FileTypes.IMAGE ? imageUploads : documentUploads).increment();
                bytesStored.increment(toRecord.size());
            } else {
                removeStored(toRecord.fileId());
            }
        }).thenApply(event -> new Logged(event.event().messageId(), toRecord.body(),
                CREATED_AT.format(event.storedAt()), toRecord.type(), fileUrl(toRecord)));
    }

    /** Removes a stored file whose message was not recorded; best effort. */
    private void removeStored(String fileId) {
        try {
            store.delete(fileId);
        } catch (IOException | RuntimeException ignored) {
            // left behind unreferenced; it is never served under a message
        }
    }

    /** Counts a refusal by its code; returns it to be thrown. */
    public ApiException refused(ApiException e) {
        metrics.counter("upload.refusals", "reason", e.code()).increment();
        return e;
    }

    private ToRecord check(Caller caller, UploadForm f, String requestId, String traceparent) {
        if (f.authId == null || !AUTH_ID.matcher(f.authId).matches()) {
            throw bad("INVALID_AUTH_ID", AUTH_ID_REQUIRED);
        }
        if (f.businessId == null || !BUSINESS_ID.matcher(f.businessId).matches()) {
            throw bad("INVALID_BUSINESS_ID", "business_id is required: a string of digits");
        }
        int type = "1".equals(f.messageType) ? FileTypes.IMAGE : "52".equals(f.messageType) ? FileTypes.DOCUMENT : 0;
        if (type == 0) {
            throw bad("INVALID_MESSAGE_TYPE", "message_type must be 1 (image) or 52 (document)");
        }
        long size = f.file == null || f.file.fileName() == null ? 0 : f.file.size();
        if (size == 0) {
            throw bad("MISSING_FILE", "file is required and may not be empty");
        }
        String body = f.messageBody == null ? "" : f.messageBody;
        if (body.length() > config.maxMessageBody()) {
            throw bad("MESSAGE_BODY_TOO_LONG",
                    "message_body may be at most " + config.maxMessageBody() + " characters");
        }
        if (!f.businessId.equals(caller.businessId())) {
            throw new ApiException(403, "BUSINESS_NOT_ALLOWED",
                    "business_id " + f.businessId + " does not belong to the account of this token");
        }
        if (!messages.userRegistered(f.businessId, f.authId)) {
            throw new ApiException(403, "USER_NOT_REGISTERED",
                    "The user " + f.authId + " is not registered for business " + f.businessId);
        }
        if (size > config.maxFileBytes()) {
            throw new ApiException(413, "FILE_TOO_LARGE", UploadResource.tooLarge(config.maxFileBytes()));
        }
        String name = sanitise(f.file.fileName());
        String ext = FileTypes.extension(name);
        List<String> allowed = type == FileTypes.IMAGE ? FileTypes.IMAGES : FileTypes.DOCUMENTS;
        if (!allowed.contains(ext)) {
            String kind = type == FileTypes.IMAGE ? "An image (message_type 1)" : "A document (message_type 52)";
            String last = allowed.get(allowed.size() - 1);
            String choices = "." + String.join(", .", allowed.subList(0, allowed.size() - 1)) + " or ." + last;
            throw new ApiException(415, "UNSUPPORTED_FILE_TYPE", kind + " must be a " + choices + " file; got "
                    + (ext.isEmpty() ? "a name without an extension" : "a ." + ext + " file"));
        }
        Path file = f.file.uploadedFile();
        try {
            if (!FileTypes.contentMatches(ext, file)) {
                throw new ApiException(415, "CONTENT_MISMATCH",
                        "The file's content is not a ." + ext + " file; send the file under its real type");
            }
        } catch (IOException e) {
            throw bad("UNREADABLE_FILE", "The uploaded file could not be read");
        }
        String fileId = FileIds.next(clock);
        try {
            store.put(fileId, file);
        } catch (IOException e) {
            throw new IllegalStateException("Storing the file failed", e);
        }
        return new ToRecord(caller, f.authId, f.businessId, type, body, fileId, name,
                FileTypes.CONTENT_TYPES.get(ext), size, requestId, traceparent);
    }

    record ToRecord(Caller caller, String authId, String businessId, int type, String body, String fileId, String name,
            String contentType, long size, String requestId, String traceparent) {
    }

    private String fileUrl(ToRecord u) {
        return config.publicBaseUrl() + "/files/" + u.fileId() + "/" + u.name();
    }

    /** The hand-off event (docs/contracts.md; platform-api's contract test holds its recorded JSON). */
    IntakeEvent event(ToRecord u, long messageId, Instant createdAt, String fileUrl) {
        return event(json, u, messageId, createdAt, fileUrl);
    }

    static IntakeEvent event(ObjectMapper json, ToRecord u, long messageId, Instant createdAt, String fileUrl) {
        String kind = u.type() == FileTypes.IMAGE ? FileMessage.IMAGE : FileMessage.DOCUMENT;
        FileMessage.Body body = new FileMessage.Body(u.body(), kind,
                new FileMessage.Data(List.of(), fileUrl, u.name()));
        try {
            return new IntakeEvent(u.requestId(), u.caller().accountId(), u.authId(), 0L,
                    json.writeValueAsString(body), messageId, "user", CREATED_AT.format(createdAt),
                    new FileMessage.Metadata(u.businessId(), u.type(), fileUrl, u.contentType(), u.size()), null);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Serialising the message body failed", e);
        }
    }

    static String sanitise(String name) {
        int slash = Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\'));
        name = LEADING_DOTS.matcher(UNSAFE_NAME_CHARACTERS.matcher(name.substring(slash + 1)).replaceAll("_"))
                .replaceAll("");
        if (name.length() > 100) {
            String ext = FileTypes.extension(name);
            name = ext.length() < 99 ? name.substring(0, 100 - ext.length() - 1) + "." + ext : name.substring(0, 100);
        }
        return name.isEmpty() ? "file" : name;
    }

    private static ApiException bad(String code, String message) {
        return new ApiException(400, code, message);
    }
}
