package com.convplatform.hook.delivery;

import java.time.Duration;
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
import org.jboss.logging.Logger;

import com.convplatform.api.management.ManagementInternal;
import com.convplatform.support.WarningPace;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.cache.CacheResult;
import io.smallrye.faulttolerance.api.ExponentialBackoff;

/**
 * Webhook URLs from management-service: a failure (no answer in time, a 5xx) is retried (the GET is idempotent); a
 * refusal (another 4xx than 404: the internal key is wrong or missing) is not, as asking again gets the same answer. A
 * breaker, so outages cost no time-outs; a refusal does not open it (management-service answered, and the attempt's
 * error should name the refusal, not the breaker), so it is counted on its own ({@code hook_account_lookups_refused},
 * by status: the alert HookManagementLookupsRefused). Time-outs: quarkus.rest-client.management.*.
 */
@ApplicationScoped
public class AccountDirectory {
    @Path("/internal/v1/accounts")
    @RegisterRestClient(configKey = "management")
    interface Management {
        @GET
        @Path("/{accountId}")
        ManagementInternal.Account account(@PathParam("accountId") String accountId);
    }

    private static final Logger LOG = Logger.getLogger(AccountDirectory.class);

    private final Management client;
    private final MeterRegistry metrics;
    private final WarningPace refusalWarnings = new WarningPace(Duration.ofMinutes(1));

    public AccountDirectory(@RestClient Management client, MeterRegistry metrics) {
        this.client = client;
        this.metrics = metrics;
    }

    /** Empty when the account does not exist; throws when the lookup failed. */
    @CacheResult(cacheName = "accounts")
    @Retry(maxRetries = 2, delay = 100, jitter = 50, delayUnit = ChronoUnit.MILLIS, abortOn = Refused.class)
    @ExponentialBackoff
    @CircuitBreaker(requestVolumeThreshold = 10, failureRatio = 0.5, delay = 5, delayUnit = ChronoUnit.SECONDS, skipOn = Refused.class)
    public Optional<String> webhookUrl(String accountId) {
        try {
            return Optional.ofNullable(client.account(accountId).webhookUrl());
        } catch (WebApplicationException e) {
            int status = e.getResponse().getStatus();
            if (status == 404) {
                return Optional.empty(); // a success for the breaker: management-service answered
            } else if (status >= 400 && status < 500) {
                metrics.counter("hook.account_lookups.refused", "status", String.valueOf(status)).increment();
                String why = "management-service refused the lookup with " + status
                        + "; check hook.management.internal-api-key against its internal key";
                if (refusalWarnings.tryWarn()) {
                    LOG.warnf("Looking up account %s: %s. No hook of an account outside the lookup cache is sent until"
                            + " it is mended; their deliveries wait for their retries (at most one such warning a minute;"
                            + " hook_account_lookups_refused_total counts them all)", accountId, why);
                }
                throw new Refused(why);
            }
            throw e;
        }
    }

    /** management-service's refusal of the lookup itself. */
    static class Refused extends RuntimeException {
        Refused(String message) {
            super(message);
        }
    }
}
