package com.convplatform.crypto.json;

import java.io.IOException;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;

/**
 * Reads one string field at the top level of a JSON object, strictly: the document must be one well-formed object
 * with nothing after it, and a duplicated key anywhere is an error (two readers could otherwise see different
 * values for the same signed field).
 */
public final class JsonFields {
    private static final JsonFactory FACTORY = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private JsonFields() {
    }

    /**
     * @return the value of {@code field} when it is present and a string; empty when absent
     * @throws IllegalArgumentException when the document is not one strict JSON object, or the field is not a string
     */
    public static Optional<String> topLevelString(byte[] json, String field) {
        String found = null;
        try (JsonParser p = FACTORY.createParser(json)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("The body is not a JSON object");
            }
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (name.equals(field)) {
                    if (value != JsonToken.VALUE_STRING) {
                        throw new IllegalArgumentException("The field '" + field + "' is not a string");
                    }
                    found = p.getText();
                } else {
                    p.skipChildren();
                }
            }
            if (t != JsonToken.END_OBJECT) {
                throw new IllegalArgumentException("The body is not a well-formed JSON object");
            }
            if (p.nextToken() != null) {
                throw new IllegalArgumentException("There is data after the JSON object");
            }
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException("The body is not valid JSON: " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new IllegalArgumentException("The body cannot be read: " + e.getMessage(), e);
        }
        return Optional.ofNullable(found);
    }
}
