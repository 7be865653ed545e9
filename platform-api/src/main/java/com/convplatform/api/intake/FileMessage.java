package com.convplatform.api.intake;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * What upload-service puts in an event for a user's file (docs/contracts.md): {@link Body} is the JSON text of the
 * event's {@code message_body} (spec 2.2: a string), {@link Metadata} its {@code metadata}. hook-service delivers both
 * as they are; they are typed here so that the producer builds them as types and the contract test reads them back.
 */
public final class FileMessage {
    public static final String IMAGE = "IMAGE";
    public static final String DOCUMENT = "DOCUMENT";

    private FileMessage() {
    }

    /** {@code type}: {@value #IMAGE} or {@value #DOCUMENT}. */
    @JsonPropertyOrder({"text", "type", "data"})
    public record Body(@JsonProperty("text") String text, @JsonProperty("type") String type,
            @JsonProperty("data") Data data) {
    }

    /** {@code quick_replies}: always empty for a file. */
    @JsonPropertyOrder({"quick_replies", "file_url", "file_name"})
    public record Data(@JsonProperty("quick_replies") List<Object> quickReplies,
            @JsonProperty("file_url") String fileUrl, @JsonProperty("file_name") String fileName) {
    }

    /** {@code message_type}: 1 (image) or 52 (document), as the upload named it; {@code size} in bytes. */
    @JsonPropertyOrder({"business_id", "message_type", "file_url", "content_type", "size"})
    public record Metadata(@JsonProperty("business_id") String businessId,
            @JsonProperty("message_type") int messageType, @JsonProperty("file_url") String fileUrl,
            @JsonProperty("content_type") String contentType, @JsonProperty("size") long size) {
    }
}
