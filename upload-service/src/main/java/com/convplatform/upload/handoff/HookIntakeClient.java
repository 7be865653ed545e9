package com.convplatform.upload.handoff;

import java.io.IOException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.faulttolerance.CircuitBreaker;
import org.eclipse.microprofile.faulttolerance.Retry;
import org.eclipse.microprofile.faulttolerance.Timeout;
import org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;
import org.eclipse.microprofile.rest.client.inject.RestClient;

import com.convplatform.api.intake.IntakeBatch;
import com.convplatform.api.intake.IntakeEvent;
import com.convplatform.api.intake.IntakeResult;
import com.convplatform.support.RequestIds;
import com.convplatform.upload.config.UploadConfig;

import io.quarkus.runtime.annotations.RegisterForReflection;
import io.smallrye.faulttolerance.api.ExponentialBackoff;

/**
 * hook-service's intake. A failure (no answer, a 5xx) is retried: the intake accepts each (account_id, message_id)
 * once, so a repeated post never makes a second hook. A refusal (4xx) is an answer, not a failure. The 12 s bound on
 * a call (a slow connect then a slow answer) is a failure like the client's own time-outs. The contract's records are
 * also read outside the REST client's own bindings (an outbox row, a {@code Response}), so registered for a native
 * image here.
 */
@ApplicationScoped
@Timeout(value = 12, unit = ChronoUnit.SECONDS)
@Retry(maxRetries = 2, delay = 250, retryOn = {IOException.class, TimeoutException.class})
@ExponentialBackoff
@CircuitBreaker(requestVolumeThreshold = 10, failureRatio = 0.5, delay = 5, delayUnit = ChronoUnit.SECONDS, failOn = {
        IOException.class, TimeoutException.class})
@RegisterForReflection(targets = {IntakeEvent.class, IntakeResult.Results.class, IntakeResult.class})
public class HookIntakeClient {
    /** Answers are read here ({@code disable-default-mapper}): a 404 (no batch intake) and a refusal are no failure. */
    @RegisterRestClient(configKey = "hook-intake")
    @Path("/internal/v1/events")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    interface HookIntake {
        @POST
        @Path("/batch")
        Response batch(@HeaderParam("Authorization") String authorization, IntakeBatch<IntakeEvent> batch);

        @POST
        Response single(@HeaderParam("Authorization") String authorization,
                @HeaderParam(RequestIds.HEADER) String requestId, IntakeEvent event);
    }

    private final HookIntake intake;
    private final String authorization;

    public HookIntakeClient(@RestClient HookIntake intake, UploadConfig config) {
        this.intake = intake;
        this.authorization = "Bearer " + config.hookService().internalApiKey().orElse("");
    }

    /**
     * Per event, null when accepted (or accepted before), else the reason; null for the list (send each alone) on a
     * 404, no batch intake, or a 413, a batch over hook-service's body limit (events with long message bodies).
     */
    public List<String> postBatch(List<IntakeEvent> events) throws IOException {
        try (Response r = intake.batch(authorization, new IntakeBatch<>(events))) {
            int status = checked(r);
            if (status == 404 || status == 413) {
                return null;
            } else if (status != 200) {
                return Collections.nCopies(events.size(), "hook-service answered " + status);
            }
            List<IntakeResult> results = r.readEntity(IntakeResult.Results.class).results();
            List<String> out = new ArrayList<>(events.size());
            for (int i = 0; i < events.size(); i++) {
                IntakeResult result = results == null || i >= results.size() ? null : results.get(i);
                out.add(result == null
                        ? "hook-service gave no result for this event"
                        : result.accepted()
                                ? null
                                : "hook-service refused the event: " + result.errorCode() + " "
                                        + result.errorMessage());
            }
            return out;
        } catch (ProcessingException e) {
            throw new IOException("hook-service unreachable or its answer unreadable: " + e.getMessage(), e);
        }
    }

    public String postOne(IntakeEvent event, String requestId) throws IOException {
        try (Response r = intake.single(authorization, requestId, event)) {
            int status = checked(r);
            return status / 100 == 2 ? null : "hook-service answered " + status;
        } catch (ProcessingException e) {
            throw new IOException("hook-service unreachable: " + e.getMessage(), e);
        }
    }

    /** The status; a 5xx is a failure (retried, counted by the circuit breaker). */
    private static int checked(Response r) throws IOException {
        if (r.getStatus() >= 500) {
            throw new IOException("hook-service answered " + r.getStatus());
        }
        return r.getStatus();
    }
}
