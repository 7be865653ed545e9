package com.convplatform.hook.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** The body of an attempt: the stored payload with a fresh signature_timestamp as its last field, serialised once. */
class HookBodyTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theTimestampIsAddedAsTheLastFieldAndTheStoredFieldsAreKeptAsTheyAre() throws Exception {
        String stored = "{\"user_id\":\"u-1\",\"conversation_number\":7,\"message_body\":\"{\\\"text\\\":\\\"h\u00e9}\\\"}\","
                + "\"message_id\":42,\"sender\":\"user\",\"timestamp\":\"2026-11-22T10:00:00.000Z\",\"metadata\":{}}";
        byte[] body = DeliveryAttempt.body(JSON, DeliveryAttempt.payload(JSON, stored), "2026-11-23T19:00:00.123Z");
        JsonNode node = JSON.readTree(body);
        List<String> names = new java.util.ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        assertEquals(List.of("user_id", "conversation_number", "message_body", "message_id", "sender", "timestamp",
                "metadata", "signature_timestamp"), names);
        assertEquals("2026-11-23T19:00:00.123Z", node.get("signature_timestamp").asText());
        assertEquals("{\"text\":\"h\u00e9}\"}", node.get("message_body").asText());
        assertEquals(JSON.readTree(stored), ((com.fasterxml.jackson.databind.node.ObjectNode) node.deepCopy())
                .without("signature_timestamp"));
        String text = new String(body, StandardCharsets.UTF_8);
        assertEquals(stored.substring(0, stored.length() - 1), text.substring(0, stored.length() - 1),
                "the stored fields are sent as intake wrote them, before the added field");
    }

    @Test
    void anEmptyObjectAndSurroundingWhiteSpaceGiveValidJson() throws Exception {
        assertEquals(JSON.readTree("{\"signature_timestamp\":\"t\"}"),
                JSON.readTree(DeliveryAttempt.body(JSON, DeliveryAttempt.payload(JSON, " { } "), "t")));
        assertEquals("{\"a\":1,\"signature_timestamp\":\"t\"}",
                new String(DeliveryAttempt.body(JSON, DeliveryAttempt.payload(JSON, "\n{\"a\":1}\n"), "t"),
                        StandardCharsets.UTF_8));
    }

    @Test
    void aPayloadThatIsNotAnObjectIsRefused() {
        for (String bad : List.of("", "{", "}", "[1]", "\"x\"", "42", "{\"a\":1", "x{}")) {
            assertNull(DeliveryAttempt.payload(JSON, bad), bad);
        }
    }
}
