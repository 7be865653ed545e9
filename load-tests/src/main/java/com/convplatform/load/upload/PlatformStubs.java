package com.convplatform.load.upload;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.interfaces.ECPublicKey;
import java.time.Instant;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import org.jose4j.jwa.AlgorithmConstraints;
import org.jose4j.jwk.EllipticCurveJsonWebKey;
import org.jose4j.jwk.JsonWebKey.OutputControlLevel;
import org.jose4j.jwk.JsonWebKeySet;
import org.jose4j.jwk.Use;
import org.jose4j.jws.AlgorithmIdentifiers;
import org.jose4j.jws.JsonWebSignature;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwt.NumericDate;
import org.jose4j.jwx.HeaderParameterNames;
import org.jose4j.keys.HmacKey;
import org.jose4j.lang.JoseException;

import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.crypto.testing.JsonExchanges;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * management-service's JWKS and hook-service's intake, as loopback stand-ins: the JWKS publishes a key generated
 * here (tokens are signed with it in the tests), and the intake (single and batch, as hook-service answers them)
 * records events; it can be switched to 503, can refuse chosen message ids, and can play a hook-service without the
 * batch intake (404). Used by the upload load test and, through {@code PlatformStubsResource}, by upload-service's
 * tests.
 */
public class PlatformStubs {
    public static final String KID = "test-kid";
    public static final KeyPair KEY = KeyPairs.ecP256();
    public static final KeyPair OTHER_KEY = KeyPairs.ecP256();
    /** The keys the JWKS publishes, by key id (KEY under KID unless a test changes it). */
    public static final Map<String, KeyPair> PUBLISHED = new java.util.concurrent.ConcurrentHashMap<>(Map.of(KID, KEY));
    /** The JWKS answer's Cache-Control max-age in seconds (0: no Cache-Control header). */
    public static volatile int jwksMaxAge;
    /** JWKS downloads so far. */
    public static final AtomicInteger JWKS_CALLS = new AtomicInteger();
    /** The intake's events (a queue: adding is cheap however many the load test sends). */
    public static final Queue<String> EVENTS = new ConcurrentLinkedQueue<>();
    /** X-Request-Id sent with each event body (absent: no header). */
    public static final java.util.Map<String, String> EVENT_REQUEST_IDS = new java.util.concurrent.ConcurrentHashMap<>();
    /** The traceparent header of the call that brought each event (absent: no header). */
    public static final java.util.Map<String, String> EVENT_CALL_TRACEPARENTS = new java.util.concurrent.ConcurrentHashMap<>();
    /** The traceparent a batch gave in each event's body (absent: none). */
    public static final java.util.Map<String, String> EVENT_TRACEPARENTS = new java.util.concurrent.ConcurrentHashMap<>();
    public static volatile boolean intakeDown;
    /** Plays a hook-service that has no batch intake yet: 404 on the batch path. */
    public static volatile boolean noBatchIntake;
    /** Plays hook-service's body limit on the batch path: 413 for a batch body over this many bytes (0: none). */
    public static volatile int batchBodyLimit;
    /** The intake refuses (400 INVALID_EVENT), in a batch or alone, an event whose JSON holds one of these. */
    public static final java.util.Set<String> REFUSED = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Calls to the single intake and to the batch intake. */
    public static final AtomicInteger SINGLE_CALLS = new AtomicInteger();
    public static final AtomicInteger BATCH_CALLS = new AtomicInteger();
    /** Every erasure call's body, as hook-service's erasure endpoint received it. */
    public static final Queue<String> ERASURES = new ConcurrentLinkedQueue<>();
    /** The X-Operator header of every erasure call ("" when it had none), in the order of {@link #ERASURES}. */
    public static final Queue<String> ERASURE_OPERATORS = new ConcurrentLinkedQueue<>();
    /**
     * management-service's revocation list, as the JSON array of its {@code revoked} field: what tests revoke (README,
     * Revoked tokens).
     */
    public static volatile String revoked = "[]";
    /** management-service's revocation list answers 503 while set. */
    public static volatile boolean revocationsDown;
    /** How often the revocation list was asked for. */
    public static final AtomicInteger REVOCATION_CALLS = new AtomicInteger();
    /** hook-service's erasure endpoint answers 503 while set. */
    public static volatile boolean erasureDown;
    /** The erasure's answer as given (a recorded sample), instead of one removed history row per message named. */
    public static volatile String erasureAnswer;
    static HttpServer server;
    static final ObjectMapper JSON = new ObjectMapper();

    /**
     * Starts the stand-ins on {@code port} of 127.0.0.1 (0: any free port) and returns the service settings that point
     * at them. The load test uses a fixed port, since the service it measures is started before it.
     */
    public static Map<String, String> startOn(int port) {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
            server.setExecutor(Executors.newFixedThreadPool(4));
            server.createContext("/jwks.json", ex -> {
                JWKS_CALLS.incrementAndGet();
                if (jwksMaxAge > 0) {
                    ex.getResponseHeaders().set("Cache-Control", "max-age=" + jwksMaxAge);
                }
                JsonExchanges.respond(ex, 200, jwks());
            });
            server.createContext("/internal/v1/events", PlatformStubs::intake);
            server.createContext("/internal/v1/events/batch", PlatformStubs::batchIntake);
            server.createContext("/internal/v1/erasures", PlatformStubs::erasure);
            server.createContext("/internal/v1/revocations", ex -> {
                ex.getRequestBody().readAllBytes();
                REVOCATION_CALLS.incrementAndGet();
                if (!"Bearer test-internal-key".equals(ex.getRequestHeaders().getFirst("Authorization"))) {
                    JsonExchanges.respond(ex, 401, "{}");
                } else if (revocationsDown) {
                    JsonExchanges.respond(ex, 503, "{}");
                } else {
                    JsonExchanges.respond(ex, 200, "{\"as_of\":\"" + Instant.now() + "\",\"revoked\":" + revoked
                            + "}");
                }
            });
            server.start();
            String base = "http://127.0.0.1:" + server.getAddress().getPort();
            return Map.of("upload.jwks-url", base + "/jwks.json", "upload.hook-service.url", base,
                    "upload.public-base-url", "https://files.platform.example", "upload.management.url", base);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void intake(HttpExchange ex) throws IOException {
        String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        SINGLE_CALLS.incrementAndGet();
        if (intakeDown) {
            JsonExchanges.respond(ex, 503, "{}");
        } else if (!"Bearer test-internal-key".equals(ex.getRequestHeaders().getFirst("Authorization"))) {
            JsonExchanges.respond(ex, 401, "{}");
        } else {
            String requestId = ex.getRequestHeaders().getFirst("X-Request-Id");
            if (requestId != null) {
                EVENT_REQUEST_IDS.put(body, requestId);
            }
            String traceparent = ex.getRequestHeaders().getFirst("traceparent");
            if (traceparent != null) {
                EVENT_CALL_TRACEPARENTS.put(body, traceparent);
            }
            if (refused(body)) {
                JsonExchanges.respond(ex, 400, "{\"error_code\":\"INVALID_EVENT\",\"error_message\":\"refused\"}");
                return;
            }
            EVENTS.add(body);
            JsonExchanges.respond(ex, 202, "{\"event_id\":\"e\"}");
        }
    }

    /** Answers as hook-service does: one removed history row per message named. */
    private static void erasure(HttpExchange ex) throws IOException {
        String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        if (erasureDown) {
            JsonExchanges.respond(ex, 503, "{}");
        } else if (!"Bearer test-internal-key".equals(ex.getRequestHeaders().getFirst("Authorization"))) {
            JsonExchanges.respond(ex, 401, "{}");
        } else {
            String operator = ex.getRequestHeaders().getFirst("X-Operator");
            ERASURE_OPERATORS.add(operator == null ? "" : operator);
            ERASURES.add(body);
            int messages = JSON.readTree(body).path("message_ids").size();
            String answer = erasureAnswer;
            JsonExchanges.respond(ex, 200, answer != null
                    ? answer
                    : "{\"removed\":{\"delivery_queue\":0,"
                            + "\"delivery_history\":" + messages + ",\"delivery_attempt\":0,\"dead_letter\":0}}");
        }
    }

    private static boolean refused(String event) {
        return REFUSED.stream().anyMatch(event::contains);
    }

    /**
     * {"events": [...]} with an optional request_id and traceparent in each; one result per event, as hook-service
     * answers.
     */
    private static void batchIntake(HttpExchange ex) throws IOException {
        byte[] body = ex.getRequestBody().readAllBytes();
        BATCH_CALLS.incrementAndGet();
        if (noBatchIntake) {
            JsonExchanges.respond(ex, 404, "{}");
            return;
        }
        if (batchBodyLimit > 0 && body.length > batchBodyLimit) {
            JsonExchanges.respond(ex, 413, "{\"error_code\":\"BODY_TOO_LARGE\"}");
            return;
        }
        if (intakeDown) {
            JsonExchanges.respond(ex, 503, "{}");
            return;
        }
        if (!"Bearer test-internal-key".equals(ex.getRequestHeaders().getFirst("Authorization"))) {
            JsonExchanges.respond(ex, 401, "{}");
            return;
        }
        com.fasterxml.jackson.databind.node.ArrayNode results = JSON.createArrayNode();
        for (com.fasterxml.jackson.databind.JsonNode e : JSON.readTree(body).get("events")) {
            if (!e.isObject() || refused(e.toString())) {
                results.addObject().put("status", 400).put("error_code", "INVALID_EVENT").put("error_message",
                        "refused");
                continue;
            }
            com.fasterxml.jackson.databind.node.ObjectNode event = (com.fasterxml.jackson.databind.node.ObjectNode) e;
            com.fasterxml.jackson.databind.JsonNode requestId = event.remove("request_id");
            com.fasterxml.jackson.databind.JsonNode traceparent = event.remove("traceparent");
            String text = JSON.writeValueAsString(event);
            if (requestId != null) {
                EVENT_REQUEST_IDS.put(text, requestId.asText());
            }
            if (traceparent != null) {
                EVENT_TRACEPARENTS.put(text, traceparent.asText());
            }
            String callTraceparent = ex.getRequestHeaders().getFirst("traceparent");
            if (callTraceparent != null) {
                EVENT_CALL_TRACEPARENTS.put(text, callTraceparent);
            }
            EVENTS.add(text);
            results.addObject().put("status", 202).put("event_id", "e");
        }
        JsonExchanges.respond(ex, 200, JSON.createObjectNode().set("results", results).toString());
    }

    /** The published keys as management-service publishes them: EC P-256, use sig, alg ES256, by key id. */
    private static String jwks() {
        JsonWebKeySet jwks = new JsonWebKeySet();
        PUBLISHED.forEach((kid, pair) -> {
            EllipticCurveJsonWebKey jwk = new EllipticCurveJsonWebKey((ECPublicKey) pair.getPublic());
            jwk.setKeyId(kid);
            jwk.setUse(Use.SIGNATURE);
            jwk.setAlgorithm(AlgorithmIdentifiers.ECDSA_USING_P256_CURVE_AND_SHA256);
            jwks.addJsonWebKey(jwk);
        });
        return jwks.toJson(OutputControlLevel.PUBLIC_ONLY);
    }

    /**
     * A token as management-service issues it, with claims overridden (set or replaced) as a test needs, signed with
     * {@code alg}: ES256 with {@code key}'s private key; or, as a hostile client would send it, {@code none}
     * (unsigned) or HS256 with the EC public key's encoding as the HMAC secret (key confusion).
     */
    public static String token(KeyPair key, String kid, String alg, Map<String, Object> overrides) {
        long now = Instant.now().getEpochSecond();
        JwtClaims claims = new JwtClaims();
        claims.setIssuer("platform-management");
        claims.setAudience("platform-api");
        claims.setSubject("client-1");
        claims.setClaim("client_id", "client-1");
        claims.setClaim("account_id", "account-1");
        claims.setClaim("business_id", "1001");
        claims.setIssuedAt(NumericDate.fromSeconds(now));
        claims.setExpirationTime(NumericDate.fromSeconds(now + 3600));
        claims.setJwtId("j");
        overrides.forEach(claims::setClaim);

        JsonWebSignature jws = new JsonWebSignature();
        jws.setPayload(claims.toJson());
        jws.setAlgorithmHeaderValue(alg);
        jws.setKeyIdHeaderValue(kid);
        jws.setHeader(HeaderParameterNames.TYPE, "JWT");
        switch (alg) {
            case AlgorithmIdentifiers.NONE -> jws.setAlgorithmConstraints(AlgorithmConstraints.NO_CONSTRAINTS);
            case AlgorithmIdentifiers.HMAC_SHA256 -> jws.setKey(new HmacKey(key.getPublic().getEncoded()));
            default -> jws.setKey(key.getPrivate());
        }
        try {
            return jws.getCompactSerialization();
        } catch (JoseException e) {
            throw new IllegalStateException(e);
        }
    }

    public static String token() {
        return token(KEY, KID, "ES256", Map.of());
    }

    /** Stops the stand-ins. */
    public static void stop() {
        if (server != null) {
            server.stop(0);
        }
    }
}
