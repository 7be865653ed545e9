package com.convplatform.hook.delivery;

import java.time.temporal.ChronoUnit;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.WebApplicationException;

import org.eclipse.microprofile.faulttolerance.CircuitBreaker;
import org.eclipse.microprofile.faulttolerance.Retry;
import org.eclipse.microprofile.rest.client.inject.RestClient;

import com.convplatform.hook.config.HookConfig;

import io.quarkus.cache.CacheResult;
import io.smallrye.faulttolerance.api.ExponentialBackoff;

/**
 * Webhook URLs of accounts, from management-service ({@link ManagementClient}). The policy lives here: a found
 * account and an unknown one (404) are both cached for {@code hook.management.cache-ttl} (cache {@code accounts},
 * bounded; a hit never reaches the client or the breaker); the GET is idempotent, so a failure is retried twice with
 * exponential backoff; a breaker opens after half of 10 lookups failed and lets one through again after 5 s, so a
 * management-service that is down costs each delivery an immediate failure rather than its time-outs. Any failure
 * that remains is thrown: the delivery is then recorded as the platform's failure and retried later, never lost.
 */
@ApplicationScoped
public class AccountDirectory {
    private final ManagementClient client;
    private final String authorization;

    public AccountDirectory(@RestClient ManagementClient client, HookConfig config) {
        this.client = client;
        this.authorization = "Bearer " + config.management().internalApiKey().orElse("");
    }

    /**
     * The account's webhook URL; empty when management-service says the account does not exist.
     *
     * @throws RuntimeException when the lookup failed after its retries, or the breaker is open
     */
    @CacheResult(cacheName = "accounts")
    @Retry(maxRetries = 2, delay = 100, jitter = 50, delayUnit = ChronoUnit.MILLIS)
    @ExponentialBackoff
    @CircuitBreaker(requestVolumeThreshold = 10, failureRatio = 0.5, delay = 5, delayUnit = ChronoUnit.SECONDS)
    public Optional<String> webhookUrl(String accountId) {
        try {
            return Optional.ofNullable(client.account(authorization, accountId).webhookUrl());
        } catch (WebApplicationException e) {
            if (e.getResponse().getStatus() == 404) {
                return Optional.empty(); // a success for the breaker: management-service answered
            }
            throw e;
        }
    }
}
