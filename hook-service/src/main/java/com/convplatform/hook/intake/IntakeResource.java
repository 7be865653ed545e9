package com.convplatform.hook.intake;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import jakarta.annotation.PreDestroy;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Singleton;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import com.convplatform.support.ApiException;
import com.convplatform.support.GroupCommit;
import com.convplatform.support.RequestIds;
import com.convplatform.support.Roles;
import com.fasterxml.jackson.databind.JsonNode;

import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

/**
 * {@code POST /internal/v1/events}: 202 once stored; the same (account_id, message_id) again is 200. {@code POST
 * /internal/v1/events/batch}: up to {@value #MAX_BATCH} events in one call, one result each.
 */
@Path("/internal/v1/events")
@Singleton
@RolesAllowed(Roles.INTERNAL)
@Tag(name = "intake", description = "Service-to-service intake (Authorization: Bearer <hook.internal.api-key>)")
public class IntakeResource {
    static final int MAX_BATCH = 100;

    private final IntakeService intake;
    private final GroupCommit<IntakeService.Valid, IntakeService.Accepted> writer;

    public IntakeResource(IntakeService intake) {
        this.intake = intake;
        // Events that arrive while a transaction is being written go in the next one together.
        this.writer = new GroupCommit<>("hook-intake-writer", 64, intake::acceptAll);
    }

    @PreDestroy
    void stop() {
        writer.close();
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Uni<Response> accept(JsonNode event) {
        IntakeService.Valid valid = intake.validate(event);
        return whenStored(List.of(valid)).map(stored -> {
            IntakeService.Accepted a = stored.get(0);
            return a.duplicate()
                    ? Response.ok(Map.of("event_id", a.eventId(), "duplicate", true)).build()
                    : Response.status(202).entity(Map.of("event_id", a.eventId())).build();
        });
    }

    /**
     * Several events in one call: {@code {"events": [event, ...]}}, 1 to {@value #MAX_BATCH}, each as for a single
     * call plus an optional {@code request_id} (logged with its delivery instead of the call's X-Request-Id). 200
     * {@code {"results": [...]}}, one per event in order: {@code {"status": 202, "event_id"}}, {@code {"status": 200,
     * "event_id", "duplicate": true}} or {@code {"status": 400, "error_code", "error_message"}}. The valid events are
     * stored whatever the others are; the answer comes once all of them are stored. Should storing fail, the call
     * fails as a whole (5xx) and may be repeated: what was stored is then answered as a duplicate.
     */
    @POST
    @Path("/batch")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Uni<Response> acceptBatch(JsonNode body) {
        JsonNode events = body == null ? null : body.get("events");
        if (events == null || !events.isArray() || events.isEmpty() || events.size() > MAX_BATCH) {
            throw new ApiException(400, "INVALID_BATCH",
                    "The body must be {\"events\": [...]} with 1 to " + MAX_BATCH + " events");
        }
        List<Object> results = new ArrayList<>(events.size());
        List<IntakeService.Valid> valid = new ArrayList<>(events.size());
        List<Integer> at = new ArrayList<>(events.size());
        String callRequestId = RequestIds.current();
        for (JsonNode e : events) {
            try {
                JsonNode id = e.get("request_id");
                if (id != null && !id.isNull() && (!id.isTextual() || id.asText().length() > 64)) {
                    throw new ApiException(400, "INVALID_REQUEST_ID", "request_id must be a string of at most 64"
                            + " characters");
                }
                valid.add(intake.validate(e, id != null && id.isTextual() ? id.asText() : callRequestId));
                at.add(results.size());
                results.add(null);
            } catch (ApiException refused) {
                results.add(Map.of("status", 400, "error_code", refused.code(), "error_message", refused.getMessage()));
            }
        }
        return whenStored(valid).map(stored -> {
            for (int i = 0; i < valid.size(); i++) {
                IntakeService.Accepted a = stored.get(i);
                results.set(at.get(i), a.duplicate()
                        ? Map.of("status", 200, "event_id", a.eventId(), "duplicate", true)
                        : Map.of("status", 202, "event_id", a.eventId()));
            }
            return Response.ok(Map.of("results", results)).build();
        });
    }

    /**
     * Hands the events to the group-commit writer and completes, on this request's event loop, once all of them are
     * stored. No thread waits meanwhile: the body was read and checked on the event loop, and a worker is taken only
     * in the rare case that a commit failed and the outcome must be read from the database. Before, each call held a
     * worker thread that first waited for the body and then for the commit.
     */
    private Uni<List<IntakeService.Accepted>> whenStored(List<IntakeService.Valid> valid) {
        Context context = Vertx.currentContext();
        List<CompletableFuture<IntakeService.Accepted>> futures = writer.submitAll(valid);
        CompletableFuture<Void> settled = CompletableFuture
                .allOf(futures.toArray(CompletableFuture[]::new)).handle((done, failed) -> null);
        Future<List<IntakeService.Accepted>> stored = Future.fromCompletionStage(settled, context).compose(done -> {
            if (futures.stream().noneMatch(CompletableFuture::isCompletedExceptionally)) {
                return Future.succeededFuture(futures.stream().map(CompletableFuture::join).toList());
            }
            return context.executeBlocking(() -> {
                List<IntakeService.Accepted> out = new ArrayList<>(valid.size());
                for (int i = 0; i < valid.size(); i++) {
                    out.add(stored(valid.get(i), futures.get(i)));
                }
                return out;
            }, false);
        });
        return Uni.createFrom().completionStage(stored.toCompletionStage());
    }

    /** The outcome of storing an event, once its batch has committed (on a worker: it may read the database). */
    private IntakeService.Accepted stored(IntakeService.Valid valid,
            CompletableFuture<IntakeService.Accepted> result) {
        try {
            return GroupCommit.await(result);
        } catch (RuntimeException raced) {
            // Two identical events at once on two replicas: the unique constraint let one in; answer with that one.
            return intake.find(valid.accountId(), valid.messageId()).map(id -> new IntakeService.Accepted(id, true))
                    .orElseThrow(() -> raced);
        }
    }
}
