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
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;
import org.eclipse.microprofile.rest.client.inject.RestClient;

import com.convplatform.support.RequestIds;
import com.convplatform.upload.config.UploadConfig;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.smallrye.faulttolerance.api.ExponentialBackoff;

/**
 * The calls to hook-service's intake and their policy, for each method: 3 s to connect and 10 s for an answer
 * ({@code quarkus.rest-client.hook-intake.*}); a call that failed (no answer, or a 5xx) tried twice more after 0.25
 * then 0.5 s (the intake accepts each (account_id, message_id) once, so a repeated post costs a request, never a second
 * hook); a circuit breaker that, once half of the last 10 calls failed, fails the calls at once for 5 s instead of
 * waiting on a hook-service that is down. A refusal (4xx) is an answer, not a failure. The outbox behind this
 * ({@link OutboxSender}) retries what still failed, with its own backoff.
 */
@ApplicationScoped
@Timeout(value = 12, unit = ChronoUnit.SECONDS)
@Retry(maxRetries = 2, delay = 250, retryOn = IOException.class)
@ExponentialBackoff
@CircuitBreaker(requestVolumeThreshold = 10, failureRatio = 0.5, delay = 5, delayUnit = ChronoUnit.SECONDS, failOn = IOException.class)
public class HookIntakeClient {
    /**
     * hook-service's intake (docs/contracts.md). Its answers are read here ({@code disable-default-mapper}), so that a
     * 404 (a hook-service without the batch intake) and a refusal can be told from a failure.
     */
    @RegisterRestClient(configKey = "hook-intake")
    @Path("/internal/v1/events")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    interface HookIntake {
        /** Up to 32 events, each with its upload's request id; answers 200 with one result per event. */
        @POST
        @Path("/batch")
        Response batch(@HeaderParam("Authorization") String authorization, Batch batch);

        /** One event, without a request id in its body; 202 when accepted (or accepted before). */
        @POST
        Response single(@HeaderParam("Authorization") String authorization,
                @HeaderParam(RequestIds.HEADER) String requestId, ObjectNode event);
    }

    record Batch(List<ObjectNode> events) {
    }

    record BatchAnswer(List<Result> results) {
    }

    record Result(int status, @JsonProperty("error_code") String errorCode,
            @JsonProperty("error_message") String errorMessage) {
    }

    private final HookIntake intake;
    private final String authorization;

    public HookIntakeClient(@RestClient HookIntake intake, UploadConfig config) {
        this.intake = intake;
        this.authorization = "Bearer " + config.hookService().internalApiKey().orElse("");
    }

    /**
     * Posts the events in one batch call; returns, per event in order, null when hook-service accepted it (or had
     * already), else the reason; null instead of the list when hook-service has no batch intake (404).
     */
    public List<String> postBatch(List<ObjectNode> events) throws IOException {
        try (Response r = intake.batch(authorization, new Batch(events))) {
            int status = checked(r);
            if (status == 404) {
                return null;
            } else if (status != 200) {
                return Collections.nCopies(events.size(), "hook-service answered " + status);
            }
            List<Result> results = r.readEntity(BatchAnswer.class).results();
            List<String> out = new ArrayList<>(events.size());
            for (int i = 0; i < events.size(); i++) {
                Result result = results == null || i >= results.size() ? null : results.get(i);
                out.add(result == null
                        ? "hook-service gave no result for this event"
                        : result.status() == 200 || result.status() == 202
                                ? null
                                : "hook-service refused the event: " + result.errorCode() + " "
                                        + result.errorMessage());
            }
            return out;
        } catch (ProcessingException e) {
            throw new IOException("hook-service unreachable or its answer unreadable: " + e.getMessage(), e);
        }
    }

    /** Posts one event to the single intake; null when accepted, else the reason. */
    public String postOne(ObjectNode event, String requestId) throws IOException {
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
