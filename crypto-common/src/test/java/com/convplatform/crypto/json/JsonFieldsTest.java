package com.convplatform.crypto.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The strict reader behind signature_timestamp and the certificate document. */
class JsonFieldsTest {
    static Optional<String> read(String json, String field) {
        return JsonFields.topLevelString(json.getBytes(StandardCharsets.UTF_8), field);
    }

    @Test
    void readsATopLevelStringAndIgnoresNestedOnes() {
        assertEquals(Optional.of("v"), read("{\"a\":{\"f\":\"nested\"},\"f\":\"v\",\"b\":[1,{\"f\":2}]}", "f"));
        assertEquals(Optional.of("caf\u00e9\n"), read("{\"f\":\"caf\\u00e9\\n\"}", "f"));
        assertEquals(Optional.empty(), read("{\"a\":{\"f\":\"nested\"}}", "f"));
        assertEquals(Optional.empty(), read("{}", "f"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{\"f\":\"a\",\"f\":\"b\"}|Duplicate field 'f'",
            "{\"x\":{\"y\":1,\"y\":2},\"f\":\"a\"}|Duplicate field 'y'",
            "{\"f\":1}|The field 'f' is not a string",
            "{\"f\":null}|The field 'f' is not a string",
            "{\"f\":{\"s\":\"a\"}}|The field 'f' is not a string",
            "[\"f\"]|The body is not a JSON object",
            "\"f\"|The body is not a JSON object",
            "{\"f\":\"a\"} {}|There is data after the JSON object",
            "{\"f\":\"a\"} x|The body is not valid JSON",
            "{\"f\":\"a\"|The body is not valid JSON",
            "{'f':'a'}|The body is not valid JSON",
            "{\"f\":\"a\",}|The body is not valid JSON"})
    void refusesAnythingButOneStrictObject(String json, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> read(json, "f"));
        assertTrue(e.getMessage().contains(message), e.getMessage());
    }

    @Test
    void emptyInputIsNotAnObject() {
        assertThrows(IllegalArgumentException.class, () -> JsonFields.topLevelString(new byte[0], "f"));
    }
}
