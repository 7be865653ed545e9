package com.convplatform.upload.message;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import com.convplatform.support.ApiException;
import com.convplatform.upload.http.MultipartReader;

/**
 * The upload form read from the request body as it arrives (see {@link MultipartReader}): the text fields in memory
 * (each at most {@link #MAX_FIELD_BYTES}), the {@code file} part streamed to a temporary file in the incoming
 * directory and never held in memory. Writing stops at the file limit plus one byte, so a file over it is known to
 * be over it; the rest of the body is read and dropped. Closing deletes the temporary file unless it was moved
 * away. The first part of a name counts; parts with other names are read and dropped, at most {@link #MAX_PARTS}.
 */
final class IncomingForm implements AutoCloseable {
    /** A text field's bytes; message_body's 4096 characters take at most 12 KiB of UTF-8. */
    static final int MAX_FIELD_BYTES = 16 * 1024;
    static final int MAX_PARTS = 32;

    private final Map<String, String> fields = new HashMap<>();
    private final Map<String, Boolean> overLong = new HashMap<>();
    private Path file;
    private String fileName;
    private long fileSize;

    private IncomingForm() {
    }

    /**
     * Reads the whole body. A body that is not well-formed multipart is refused with 400 {@code INVALID_MULTIPART};
     * on any failure the temporary file is deleted and the rest of the body is left unread.
     */
    static IncomingForm read(InputStream body, String contentType, Path incomingDir, long maxFileBytes)
            throws IOException {
        String boundary = MultipartReader.boundary(contentType).orElseThrow(() -> new ApiException(400,
                "INVALID_MULTIPART", "The Content-Type needs a valid multipart boundary parameter"));
        IncomingForm form = new IncomingForm();
        try {
            MultipartReader reader = new MultipartReader(body, boundary);
            int parts = 0;
            for (Optional<MultipartReader.Part> next = reader.nextPart(); next.isPresent(); next = reader.nextPart()) {
                if (++parts > MAX_PARTS) {
                    throw new ApiException(400, "INVALID_MULTIPART",
                            "The form has more than " + MAX_PARTS + " parts");
                }
                MultipartReader.Part part = next.get();
                if (part.name().equals("file") && part.fileName() != null) {
                    if (form.file == null) {
                        form.fileName = part.fileName();
                        form.file = Files.createTempFile(Files.createDirectories(incomingDir), "upload-", ".part");
                        try (FileChannel out = FileChannel.open(form.file, StandardOpenOption.WRITE)) {
                            form.fileSize = reader.copyTo(out, maxFileBytes);
                        }
                    }
                } else if (part.fileName() == null && !form.fields.containsKey(part.name())
                        && !form.overLong.containsKey(part.name())) {
                    Optional<String> text = reader.readText(MAX_FIELD_BYTES);
                    if (text.isPresent()) {
                        form.fields.put(part.name(), text.get());
                    } else {
                        form.overLong.put(part.name(), true);
                    }
                }
            }
            return form;
        } catch (MultipartReader.MalformedException e) {
            form.close();
            throw new ApiException(400, "INVALID_MULTIPART", "The multipart body is malformed: " + e.getMessage());
        } catch (IOException | RuntimeException e) {
            form.close();
            throw e;
        }
    }

    /** The form for {@link UploadService}: an over-long text field is given as one character over any limit. */
    UploadService.Form toForm() {
        return new UploadService.Form(field("auth_id"), field("business_id"), field("message_type"), file, fileName,
                fileSize, field("message_body"));
    }

    private String field(String name) {
        if (overLong.containsKey(name)) {
            return "\u0000".repeat(MAX_FIELD_BYTES + 1);
        }
        return fields.get(name);
    }

    @Override
    public void close() {
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // left for the start-up sweep of the incoming directory
            }
        }
    }
}
