package com.convplatform.hook.delivery;

import java.time.temporal.ChronoUnit;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.WebApplicationException;

import org.eclipse.microprofile.faulttolerance.CircuitBreaker;
import org.eclipse.microprofile.faulttolerance.Retry;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;
import org.eclipse.microprofile.rest.client.inject.RestClient;

import io.quarkus.cache.CacheResult;
import io.smallrye.faulttolerance.api.ExponentialBackoff;

/** Webhook URLs from management-service: retried (the GET is idempotent); a breaker, so outages cost no time-outs. */
@ApplicationScoped
public class AccountDirectory {
    @Path("/internal/v1/accounts")
    @RegisterRestClient(configKey = "management")
    interface Management {
        record Account(String webhookUrl) {
        }

        @GET
        @Path("/{accountId}")
        Account account(@PathParam("accountId") String accountId);
    }

    private final Management client;

    public AccountDirectory(@RestClient Management client) {
        this.client = client;
    }

    /** Empty when the account does not exist; throws when the lookup failed. */
    @CacheResult(cacheName = "accounts")
    @Retry(maxRetries = 2, delay = 100, jitter = 50, delayUnit = ChronoUnit.MILLIS)
    @ExponentialBackoff
    @CircuitBreaker(requestVolumeThreshold = 10, failureRatio = 0.5, delay = 5, delayUnit = ChronoUnit.SECONDS)
    public Optional<String> webhookUrl(String accountId) {
        try {
            return Optional.ofNullable(client.account(accountId).webhookUrl());
        } catch (WebApplicationException e) {
            if (e.getResponse().getStatus() == 404) {
                return Optional.empty(); // a success for the breaker: management-service answered
            }
            throw e;
        }
    }
}
