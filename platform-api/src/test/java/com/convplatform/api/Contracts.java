package com.convplatform.api;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The recorded JSON of each contract ({@code contracts/*.json}, one line, exactly as on the wire). The producer's
 * tests check that what it writes is this text; the consumer's that it binds and answers it: a change made on one side
 * alone fails the other side's test.
 */
public final class Contracts {
    /** upload-service's hand-off event, as stored in its outbox and posted (less the batch's traceparent). */
    public static final String INTAKE_EVENT = "intake-event.json";
    /** {@code POST /internal/v1/events/batch}: one event of an upload, with its hand-off span's traceparent. */
    public static final String INTAKE_BATCH = "intake-batch.json";
    /** The same event as hook-service stores it: the delivered hook's body, before its signature_timestamp. */
    public static final String HOOK_BODY = "hook-body.json";
    /** The batch's answer: stored, duplicate, refused. */
    public static final String INTAKE_RESULTS = "intake-results.json";
    /** hook-service's {@code GET /admin/v1/deliveries/summary}, as the console reads it. */
    public static final String HOOK_SUMMARY = "hook-summary.json";
    /** hook-service's {@code GET /admin/v1/deliveries/{id}}, as the console reads it. */
    public static final String HOOK_DELIVERY_DETAIL = "hook-delivery-detail.json";
    /** management-service's {@code GET /internal/v1/accounts/{id}}, as hook-service looks the webhook URL up. */
    public static final String MANAGEMENT_ACCOUNT = "management-account.json";
    /** management-service's {@code GET /internal/v1/revocations}, as upload-service polls it. */
    public static final String MANAGEMENT_REVOCATIONS = "management-revocations.json";
    /** upload-service's {@code POST /internal/v1/erasures} to hook-service: an upload user's messages. */
    public static final String HOOK_ERASURE = "hook-erasure.json";
    /** hook-service's answer to it: the rows removed, by table. */
    public static final String HOOK_ERASED = "hook-erased.json";

    private Contracts() {
    }

    public static String sample(String name) {
        try (InputStream in = Contracts.class.getResourceAsStream("/contracts/" + name)) {
            if (in == null) {
                throw new IllegalArgumentException("No recorded contract " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Where a live answer's shape differs from the recorded one: each field path (an array's elements as {@code []})
     * with its JSON type; a null on either side matches any type. Empty when they agree.
     */
    public static List<String> shapeDifferences(String recorded, String actual) {
        Map<String, String> want = shape(recorded);
        Map<String, String> got = shape(actual);
        List<String> out = new ArrayList<>();
        for (String path : want.keySet()) {
            String a = want.get(path);
            String b = got.get(path);
            if (b == null) {
                out.add(path + ": missing (recorded " + a + ")");
            } else if (!a.equals(b) && !a.equals("NULL") && !b.equals("NULL")) {
                out.add(path + ": " + b + " (recorded " + a + ")");
            }
        }
        got.keySet().stream().filter(p -> !want.containsKey(p)).forEach(p -> out.add(p + ": not recorded"));
        return out;
    }

    private static Map<String, String> shape(String json) {
        try {
            Map<String, String> out = new TreeMap<>();
            shape("", new ObjectMapper().readTree(json), out);
            return out;
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static void shape(String path, JsonNode node, Map<String, String> out) {
        out.merge(path.isEmpty() ? "$" : path, node.getNodeType().name(), (a, b) -> a.equals("NULL") ? b : a);
        if (node.isObject()) {
            node.properties().forEach(f -> shape(path + "." + f.getKey(), f.getValue(), out));
        } else if (node.isArray()) {
            node.forEach(e -> shape(path + "[]", e, out));
        }
    }
}
