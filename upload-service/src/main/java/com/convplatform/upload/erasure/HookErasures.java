package com.convplatform.upload.erasure;

import java.io.IOException;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.faulttolerance.Retry;
import org.eclipse.microprofile.faulttolerance.Timeout;
import org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;
import org.eclipse.microprofile.rest.client.inject.RestClient;

import com.convplatform.api.hook.HookErasure;
import com.convplatform.support.audit.OperatorAudit;
import com.convplatform.upload.config.UploadConfig;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * hook-service's erasure of an upload user's deliveries ({@code POST /internal/v1/erasures}), with the intake's URL
 * and key, through a REST client of its own ({@code hook-erasures}). Repeating a call removes nothing more, so a failure
 * is retried.
 */
@ApplicationScoped
@RegisterForReflection(targets = HookErasure.Erased.class) // read with readEntity, which the build cannot see
@Timeout(value = 30, unit = ChronoUnit.SECONDS)
@Retry(maxRetries = 2, delay = 500, retryOn = {IOException.class, TimeoutException.class})
public class HookErasures {
    @RegisterRestClient(configKey = "hook-erasures")
    @Path("/internal/v1/erasures")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    interface Api {
        @POST
        Response erase(@HeaderParam("Authorization") String authorization,
                @HeaderParam(OperatorAudit.OPERATOR_HEADER) String operator, HookErasure.Erasure erasure);
    }

    private final Api api;
    private final String authorization;

    public HookErasures(@RestClient Api api, UploadConfig config) {
        this.api = api;
        this.authorization = "Bearer " + config.hookService().internalApiKey().orElse("");
    }

    /**
     * Rows hook-service removed for these messages of the account; hook-service records the call as made on behalf
     * of {@code operator}, who asked for the erasure.
     */
    public int erase(String accountId, List<Long> messageIds, String operator) throws IOException {
        try (Response r = api.erase(authorization, operator, new HookErasure.Erasure(accountId, messageIds))) {
            if (r.getStatus() != 200) {
                throw new IOException("hook-service answered " + r.getStatus() + " to the erasure: "
                        + r.readEntity(String.class));
            }
            Map<String, Integer> removed = r.readEntity(HookErasure.Erased.class).removed();
            return removed == null ? 0 : removed.values().stream().mapToInt(Integer::intValue).sum();
        } catch (ProcessingException e) {
            throw new IOException("hook-service unreachable: " + e.getMessage(), e);
        }
    }
}
