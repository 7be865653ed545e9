package com.convplatform.hook.delivery;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;

import com.convplatform.hook.config.HookConfig;
import com.convplatform.support.RequestIds;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** Webhook URLs of accounts, read from management-service's internal API and cached briefly. */
@ApplicationScoped
public class AccountDirectory {
    /** The lookup failed for a reason worth retrying later (management-service unreachable or failing). */
    public static final class Unavailable extends Exception {
        private static final long serialVersionUID = 1L;

        Unavailable(String message) {
            super(message);
        }
    }

    private record Cached(Optional<String> webhookUrl, Instant until) {
    }

    private final HookConfig config;
    private final Clock clock;
    private final ObjectMapper json;
    private final HttpClient http;
    private final Map<String, Cached> cache = new ConcurrentHashMap<>();

    public AccountDirectory(HookConfig config, Clock clock, ObjectMapper json) {
        this.config = config;
        this.clock = clock;
        this.json = json;
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3))
                .followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /** The account's webhook URL; empty when management-service says the account does not exist. */
    public Optional<String> webhookUrl(String accountId) throws Unavailable {
        Cached c = cache.get(accountId);
        if (c != null && clock.instant().isBefore(c.until())) {
            return c.webhookUrl();
        }
        HttpRequest req = RequestIds.passOn(HttpRequest.newBuilder(URI.create(config.management().url()
                + "/internal/v1/accounts/"
                + java.net.URLEncoder.encode(accountId, java.nio.charset.StandardCharsets.UTF_8)))
                .timeout(Duration.ofSeconds(5))
                .header("Authorization", "Bearer " + config.management().internalApiKey().orElse("")),
                RequestIds.current()).GET().build();
        try {
            HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
            Optional<String> url;
            if (r.statusCode() == 200) {
                JsonNode n = json.readTree(r.body());
                url = Optional.ofNullable(n.path("webhook_url").asText(null));
            } else if (r.statusCode() == 404) {
                url = Optional.empty();
            } else {
                throw new Unavailable("management-service answered " + r.statusCode() + " for account " + accountId);
            }
            cache.put(accountId, new Cached(url, clock.instant().plus(config.management().cacheTtl())));
            return url;
        } catch (java.io.IOException e) {
            throw new Unavailable("management-service is unreachable: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unavailable("interrupted");
        }
    }
}
