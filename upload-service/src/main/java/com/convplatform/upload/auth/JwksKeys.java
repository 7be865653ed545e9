package com.convplatform.upload.auth;

import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.AlgorithmParameters;
import java.security.KeyFactory;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPoint;
import java.security.spec.ECPublicKeySpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import com.convplatform.upload.config.UploadConfig;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The token keys from management-service's JWKS (EC P-256 only), cached; an unknown key id triggers a refresh, at
 * most once per {@code upload.jwks-min-refresh}, so forged key ids cannot hammer the JWKS endpoint.
 */
@ApplicationScoped
public class JwksKeys {
    private static final Logger LOG = Logger.getLogger(JwksKeys.class);

    private final UploadConfig config;
    private final Clock clock;
    private final ObjectMapper json;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3))
            .followRedirects(HttpClient.Redirect.NEVER).build();
    private volatile Map<String, ECPublicKey> keys = Map.of();
    private volatile Instant lastRefresh = Instant.EPOCH;

    public JwksKeys(UploadConfig config, Clock clock, ObjectMapper json) {
        this.config = config;
        this.clock = clock;
        this.json = json;
    }

    /** The key with this id, refreshing the JWKS first when it is unknown (rate-limited). */
    public Optional<ECPublicKey> key(String kid) {
        ECPublicKey k = keys.get(kid);
        if (k != null) {
            return Optional.of(k);
        }
        refreshIfAllowed();
        return Optional.ofNullable(keys.get(kid));
    }

    private synchronized void refreshIfAllowed() {
        Instant now = clock.instant();
        if (now.isBefore(lastRefresh.plus(config.jwksMinRefresh()))) {
            return;
        }
        lastRefresh = now;
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(config.jwksUrl()))
                    .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                LOG.warnf("JWKS at %s answered %d", config.jwksUrl(), r.statusCode());
                return;
            }
            Map<String, ECPublicKey> fresh = new HashMap<>();
            for (JsonNode jwk : json.readTree(r.body()).path("keys")) {
                if ("EC".equals(jwk.path("kty").asText()) && "P-256".equals(jwk.path("crv").asText())
                        && jwk.hasNonNull("kid")) {
                    fresh.put(jwk.get("kid").asText(), ecKey(jwk.get("x").asText(), jwk.get("y").asText()));
                }
            }
            keys = Map.copyOf(fresh);
        } catch (Exception e) {
            LOG.warnf("JWKS at %s could not be read: %s", config.jwksUrl(), e.toString());
        }
    }

    private static ECPublicKey ecKey(String x, String y) throws Exception {
        AlgorithmParameters params = AlgorithmParameters.getInstance("EC");
        params.init(new ECGenParameterSpec("secp256r1"));
        ECParameterSpec spec = params.getParameterSpec(ECParameterSpec.class);
        ECPoint w = new ECPoint(new BigInteger(1, Base64.getUrlDecoder().decode(x)),
                new BigInteger(1, Base64.getUrlDecoder().decode(y)));
        return (ECPublicKey) KeyFactory.getInstance("EC").generatePublic(new ECPublicKeySpec(w, spec));
    }
}
