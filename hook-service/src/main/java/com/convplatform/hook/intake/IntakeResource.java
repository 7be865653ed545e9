package com.convplatform.hook.intake;

import java.util.Map;

import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import com.convplatform.hook.config.HookConfig;
import com.convplatform.support.ApiKeyGuard;
import com.convplatform.support.GroupCommit;
import com.fasterxml.jackson.databind.JsonNode;

/** {@code POST /internal/v1/events}: 202 once stored; the same (account_id, message_id) again is 200. */
@Path("/internal/v1/events")
@Singleton
@Tag(name = "intake", description = "Service-to-service intake (Authorization: Bearer <hook.internal.api-key>)")
public class IntakeResource {
    private final IntakeService intake;
    private final HookConfig config;
    private final GroupCommit<IntakeService.Valid, IntakeService.Accepted> writer;

    public IntakeResource(IntakeService intake, HookConfig config) {
        this.intake = intake;
        this.config = config;
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
    public Response accept(@HeaderParam("Authorization") String authorization, JsonNode event) {
        ApiKeyGuard.require(config.internal().apiKey(), authorization, "internal");
        IntakeService.Valid valid = intake.validate(event);
        IntakeService.Accepted a;
        try {
            a = writer.submit(valid);
        } catch (RuntimeException raced) {
            // Two identical events at once on two replicas: the unique constraint let one in; answer with that one.
            a = intake.find(valid.accountId(), valid.messageId()).map(id -> new IntakeService.Accepted(id, true))
                    .orElseThrow(() -> raced);
        }
        return a.duplicate()
                ? Response.ok(Map.of("event_id", a.eventId(), "duplicate", true)).build()
                : Response.status(202).entity(Map.of("event_id", a.eventId())).build();
    }
}
