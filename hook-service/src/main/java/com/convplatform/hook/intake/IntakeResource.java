package com.convplatform.hook.intake;

import static com.convplatform.api.intake.IntakeBatch.INVALID_BATCH;
import static com.convplatform.api.intake.IntakeResult.EXAMPLE_ID;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import jakarta.annotation.PreDestroy;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Singleton;
import jakarta.validation.Valid;
import jakarta.validation.Validator;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;
import org.jboss.resteasy.reactive.RestResponse;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;
import org.jboss.resteasy.reactive.server.SimpleResourceInfo;

import com.convplatform.api.intake.IntakeBatch;
import com.convplatform.api.intake.IntakeEvent;
import com.convplatform.api.intake.IntakeResult;
import com.convplatform.hook.delivery.DeliveryWorker;
import com.convplatform.hook.delivery.IntakeRepository;
import com.convplatform.support.ApiException;
import com.convplatform.support.CommitDeadline;
import com.convplatform.support.ErrorMappers;
import com.convplatform.support.GroupCommit;
import com.convplatform.support.LocalTransaction;
import com.convplatform.support.RequestIds;
import com.convplatform.support.Roles;
import com.convplatform.support.TraceContexts;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;

import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;

@Path("/internal/v1/events")
@Singleton
@RolesAllowed(Roles.INTERNAL)
@Consumes(MediaType.APPLICATION_JSON)
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "intake", description = "Service-to-service intake (Authorization: Bearer <hook.internal.api-key>)")
public class IntakeResource {
    static final String INVALID_EVENT = "INVALID_EVENT: The event must be a JSON object";
    private static final String EVENT_CODES = "MISSING_FIELD, FIELD_TOO_LONG, INVALID_TIMESTAMP, INVALID_METADATA,"
            + " INVALID_EVENT";

    private final ObjectMapper json;
    /** The stored payload: the event as the hook delivers it (spec 2.2), without account_id and the batch fields. */
    private final ObjectWriter hookBody;
    private final Validator validator;
    private final GroupCommit<IntakeRepository.Valid, IntakeRepository.Accepted> writer;

    public IntakeResource(IntakeRepository intake, DeliveryWorker worker, ObjectMapper json, Validator validator,
            CommitDeadline deadline) {
        this.json = json;
        this.hookBody = hookBody(json);
        this.validator = validator;
        // Events that arrive while a transaction is being written go in the next one together (group commit).
        this.writer = new GroupCommit<>("hook-intake-writer", 64, deadline.get(), events -> {
            List<IntakeRepository.Accepted> stored = intake.acceptAll(events);
            worker.wake();
            return stored;
        });
    }

    @PreDestroy
    void stop() {
        writer.close();
    }

    @POST
    @Operation(summary = "Take in one event; answered once it is stored (then delivered at least once)")
    @APIResponse(responseCode = "202", description = "Stored", content = @Content(schema = @Schema(implementation = IntakeResult.Stored.class), example = "{\"event_id\": \""
            + EXAMPLE_ID + "\"}"))
    @APIResponse(responseCode = "200", description = "The same (account_id, message_id) was accepted before: its event, not stored again", content = @Content(schema = @Schema(implementation = IntakeResult.Stored.class), example = "{\"event_id\": \""
            + EXAMPLE_ID + "\", \"duplicate\": true}"))
    @APIResponse(responseCode = "400", description = EVENT_CODES + ", MALFORMED_JSON")
    public Uni<RestResponse<IntakeResult.Stored>> accept(@NotNull(message = INVALID_EVENT) @Valid IntakeEvent event) {
        return whenStored(List.of(valid(event, RequestIds.current(), TraceContexts.current()))).map(stored -> {
            IntakeRepository.Accepted a = stored.get(0);
            return RestResponse.status(a.duplicate() ? Response.Status.OK : Response.Status.ACCEPTED,
                    new IntakeResult.Stored(a.eventId(), a.duplicate() ? true : null));
        });
    }

    /** Should storing fail, the call fails (5xx) and may be repeated: what was stored is answered as duplicate. */
    @POST
    @Path("/batch")
    @Operation(summary = "Take in 1 to 100 events; one result each, in order, once the valid ones are stored")
    @APIResponse(responseCode = "200", description = "One result per event: 202 stored, 200 accepted before, 400 with "
            + EVENT_CODES
            + ", INVALID_REQUEST_ID", content = @Content(schema = @Schema(implementation = IntakeResult.Results.class), example = "{\"results\": [{\"status\": 202, \"event_id\": \""
                    + EXAMPLE_ID + "\"}, {\"status\": 400,"
                    + " \"error_code\": \"MISSING_FIELD\", \"error_message\": \"'user_id' is required and must be a"
                    + " non-empty string\"}]}"))
    @APIResponse(responseCode = "400", description = "INVALID_BATCH (nothing stored), MALFORMED_JSON")
    public Uni<IntakeResult.Results> acceptBatch(@NotNull(message = INVALID_BATCH) @Valid IntakeBatch<JsonNode> body) {
        IntakeResult[] results = new IntakeResult[body.events().size()];
        List<IntakeRepository.Valid> valid = new ArrayList<>(results.length);
        List<Integer> at = new ArrayList<>(results.length);
        String callRequestId = RequestIds.current();
        String callTrace = TraceContexts.current();
        for (int i = 0; i < results.length; i++) {
            try {
                IntakeEvent e = event(body.events().get(i));
                String traceparent = trace(e.traceparentText(), callTrace);
                valid.add(valid(e, requestId(traceparent, e.requestId(), callRequestId), traceparent));
                at.add(i);
            } catch (ApiException refused) {
                results[i] = IntakeResult.refused(refused.code(), refused.getMessage());
            }
        }
        return whenStored(valid).map(stored -> {
            for (int i = 0; i < at.size(); i++) {
                results[at.get(i)] = IntakeResult.stored(stored.get(i).eventId(), stored.get(i).duplicate());
            }
            return new IntakeResult.Results(List.of(results));
        });
    }

    @JsonIgnoreProperties({"account_id", "request_id", "traceparent"})
    private interface HookBody {
    }

    static ObjectWriter hookBody(ObjectMapper json) {
        return json.copy().addMixIn(IntakeEvent.class, HookBody.class).writerFor(IntakeEvent.class);
    }

    /** A field of the wrong type, or a body that is not a JSON object. */
    @ServerExceptionMapper
    public Response mistyped(MismatchedInputException e, SimpleResourceInfo resource) {
        ApiException refusal = "acceptBatch".equals(resource.getMethodName()) ? coded(INVALID_BATCH) : refusal(e);
        return ErrorMappers.error(400, refusal.code(), refusal.getMessage());
    }

    /** One event of a batch, bound and validated as the single call's body is (first violation by path). */
    private IntakeEvent event(JsonNode node) {
        if (node == null || !node.isObject()) {
            throw coded(INVALID_EVENT);
        }
        try {
            IntakeEvent e = json.treeToValue(node, IntakeEvent.class);
            validator.validate(e).stream().min(Comparator.comparing(v -> v.getPropertyPath().toString()))
                    .ifPresent(first -> {
                        throw coded(first.getMessage());
                    });
            return e;
        } catch (MismatchedInputException mistyped) {
            throw refusal(mistyped);
        } catch (JsonProcessingException unreadable) {
            throw coded(INVALID_EVENT);
        }
    }

    private static ApiException refusal(MismatchedInputException e) {
        String field = e.getPath().isEmpty() ? null : e.getPath().get(0).getFieldName();
        if (field == null) {
            return coded(INVALID_EVENT);
        }
        return switch (field) {
            case "request_id" -> coded("INVALID_REQUEST_ID: request_id must be a string of at most 64 characters");
            case "conversation_number", "message_id" -> coded(
                    "MISSING_FIELD: '" + field + "' is required and must be a non-negative integer");
            default -> coded("MISSING_FIELD: '" + field + "' is required and must be a non-empty string");
        };
    }

    private static ApiException coded(String message) {
        int colon = message.indexOf(": ");
        return new ApiException(400, message.substring(0, colon), message.substring(colon + 2));
    }

    /** A batch event's own traceparent when valid and of another trace than the call's; else this call's span. */
    static String trace(String eventTraceparent, String callTraceparent) {
        var event = TraceContexts.spanContext(eventTraceparent);
        if (!event.isValid() || callTraceparent != null
                && event.getTraceId().equals(TraceContexts.spanContext(callTraceparent).getTraceId())) {
            return callTraceparent;
        }
        return TraceContexts.of(event);
    }

    /**
     * The request id of a batch event: the trace id of the trace its delivery continues (one id, as everywhere); the
     * event's own request_id only for an event that comes without a trace (an outbox row written before its upload's
     * trace was kept), else the call's.
     */
    static String requestId(String traceparent, String eventRequestId, String callRequestId) {
        String traceId = RequestIds.of(traceparent);
        return traceId != null ? traceId : eventRequestId != null ? eventRequestId : callRequestId;
    }

    private IntakeRepository.Valid valid(IntakeEvent e, String requestId, String traceparent) {
        try {
            return new IntakeRepository.Valid(e.accountId(), e.messageId(), hookBody.writeValueAsString(e), requestId,
                    traceparent);
        } catch (JsonProcessingException ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** Completes once all the events are stored, on this request's event loop: no thread waits. */
    private Uni<List<IntakeRepository.Accepted>> whenStored(List<IntakeRepository.Valid> valid) {
        var context = Vertx.currentContext();
        List<CompletableFuture<IntakeRepository.Accepted>> futures = writer.submitAll(valid);
        return Uni.createFrom().completionStage(CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)))
                .emitOn(task -> context.runOnContext(v -> task.run()))
                .onFailure().transform(failure -> mayHaveHappened(futures, failure))
                .map(done -> futures.stream().map(CompletableFuture::join).toList());
    }

    /**
     * A batch's events that failed differently (past the commit deadline, some on their way, some withdrawn) are
     * answered by the one that may have changed something: OUTCOME_UNKNOWN, never "changed nothing".
     */
    private static Throwable mayHaveHappened(List<CompletableFuture<IntakeRepository.Accepted>> futures,
            Throwable failure) {
        for (CompletableFuture<IntakeRepository.Accepted> f : futures) {
            try {
                f.join();
            } catch (CompletionException e) {
                if (e.getCause() instanceof LocalTransaction.OutcomeUnknown unknown) {
                    return unknown;
                }
            }
        }
        return failure;
    }
}
