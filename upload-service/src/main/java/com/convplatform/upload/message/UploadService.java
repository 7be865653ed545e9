package com.convplatform.upload.message;

import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.CompletionStage;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import com.convplatform.api.intake.FileMessage;
import com.convplatform.api.intake.IntakeEvent;
import com.convplatform.support.ApiException;
import com.convplatform.support.CommitDeadline;
import com.convplatform.support.GroupCommit;
import com.convplatform.support.LocalTransaction;
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
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * Spec 4.5: an upload checked ({@link UploadChecks}), its file stored, its message and hand-off event recorded
 * ({@link MessageRepository}) and handed on.
 */
@ApplicationScoped
// written with the ObjectMapper by hand (the body as text, the metadata as IntakeEvent's Object), which the native build
// cannot see (NativeImageRulesTest)
@RegisterForReflection(targets = {FileMessage.Body.class, FileMessage.Data.class, FileMessage.Metadata.class})
public class UploadService {
    static final DateTimeFormatter CREATED_AT = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'")
            .withZone(ZoneOffset.UTC);

    @Schema(name = "UploadedFileMessage")
    public record Logged(@JsonProperty("message_id") @Schema(example = "12") long messageId,
            @JsonProperty("message_body") @Schema(example = "see attached") String messageBody,
            @JsonProperty("created_at") @Schema(example = "2026-11-22T15:40:00.123Z") String createdAt,
            @JsonProperty("message_type") @Schema(example = "1") int messageType,
            @JsonProperty("file_url") @Schema(example = "https://files.example.com/files/0193a5b2c4d6e8f00112233445566778899aabbccdd/holiday_photo.png") String fileUrl) {
    }

    private final UploadConfig config;
    private final UploadChecks checks;
    private final MessageRepository messages;
    private final FileStore store;
    private final Clock clock;
    private final MeterRegistry metrics;
    private final OutboxSender handOff;
    private final ObjectMapper json;
    private final Counter imageUploads;
    private final Counter documentUploads;
    private final Counter bytesStored;
    private final CommitDeadline deadline;
    private GroupCommit<ToRecord, Claimed> writer;

    UploadService(UploadConfig config, UploadChecks checks, MessageRepository messages, FileStore store, Clock clock,
            MeterRegistry metrics, OutboxSender handOff, ObjectMapper json, CommitDeadline deadline) {
        this.config = config;
        this.deadline = deadline;
        this.checks = checks;
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
        writer = new GroupCommit<>("upload-message-writer", 64, deadline.get(),
                uploads -> messages.recordAll(uploads, (u, messageId, at) -> event(json, u, messageId, at)));
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
        return writer.queue(toRecord).whenComplete((event, failure) -> {
            if (failure == null && event != null) {
                handOff.handOn(event);
                (toRecord.type() == FileTypes.IMAGE ? imageUploads : documentUploads).increment();
                bytesStored.increment(toRecord.size());
            } else if (!(failure instanceof LocalTransaction.OutcomeUnknown)) {
                removeStored(toRecord.fileId()); // kept when its message may be there; retention removes it with its day
            }
        }).thenApply(event -> {
            if (event == null) {
                throw refused(UploadChecks.notRegistered(toRecord.businessId(), toRecord.authId()));
            }
            return new Logged(event.event().messageId(), toRecord.body(), CREATED_AT.format(event.storedAt()),
                    toRecord.type(), toRecord.fileUrl());
        });
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
        UploadChecks.Checked ok = checks.check(caller, f);
        String fileId = FileIds.next(clock);
        try {
            store.put(fileId, f.file.uploadedFile());
        } catch (IOException e) {
            throw new IllegalStateException("Storing the file failed", e);
        }
        return new ToRecord(caller, f.authId, f.businessId, ok.type(), ok.body(), fileId, ok.name(), ok.contentType(),
                ok.size(), requestId, traceparent, config.publicBaseUrl() + "/files/" + fileId + "/" + ok.name());
    }

    record ToRecord(Caller caller, String authId, String businessId, int type, String body, String fileId, String name,
            String contentType, long size, String requestId, String traceparent, String fileUrl) {
    }

    /** The hand-off event (docs/contracts.md; platform-api's contract test holds its recorded JSON). */
    static IntakeEvent event(ObjectMapper json, ToRecord u, long messageId, Instant createdAt) {
        String kind = u.type() == FileTypes.IMAGE ? FileMessage.IMAGE : FileMessage.DOCUMENT;
        FileMessage.Body body = new FileMessage.Body(u.body(), kind,
                new FileMessage.Data(List.of(), u.fileUrl(), u.name()));
        try {
            return new IntakeEvent(u.requestId(), u.caller().accountId(), u.authId(), 0L,
                    json.writeValueAsString(body), messageId, "user", CREATED_AT.format(createdAt),
                    new FileMessage.Metadata(u.businessId(), u.type(), u.fileUrl(), u.contentType(), u.size()), null);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Serialising the message body failed", e);
        }
    }
}
