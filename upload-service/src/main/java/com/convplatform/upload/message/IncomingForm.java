package com.convplatform.upload.message;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import com.convplatform.support.ApiException;
import com.convplatform.upload.http.MultipartReader;

/**
 * The upload form read from the request body as it arrives (see {@link MultipartReader}): the text fields in memory
 * (each at most {@link #MAX_FIELD_BYTES}), the {@code file} part streamed to the file the store names for it
 * ({@code FileStore.incomingPath}: in place for the local store, a temporary file in the incoming directory otherwise)
 * and never held in memory. Writing stops at the file limit plus one byte, so a file over it is known to
 * be over it; the rest of the body is read and dropped. Closing deletes that file unless the store took it
 * (then there is nothing to delete, and no system call is spent finding that out). The first part of a name
 * counts; parts with other names are read and dropped, at most {@link #MAX_PARTS}.
 */
final class IncomingForm implements AutoCloseable {
    private static final boolean POSIX = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    private static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY = PosixFilePermissions
            .asFileAttribute(PosixFilePermissions.fromString("rw-------"));

    /** A text field's bytes; message_body's 4096 characters take at most 12 KiB of UTF-8. */
    static final int MAX_FIELD_BYTES = 16 * 1024;
    static final int MAX_PARTS = 32;

    private final Map<String, String> fields = new HashMap<>();
    private final Map<String, Boolean> overLong = new HashMap<>();
    private Path file;
    private String fileName;
    private long fileSize;
    /** The file's first bytes, for the content check without reading the file again. */
    private final byte[] head = new byte[FileTypes.HEAD_BYTES];
    private int headLength;

    private IncomingForm() {
    }

    /**
     * Reads the whole body. A body that is not well-formed multipart is refused with 400 {@code INVALID_MULTIPART};
     * on any failure the file part is deleted and the rest of the body is left unread.
     */
    static IncomingForm read(InputStream body, String contentType, Path partFile, long maxFileBytes)
            throws IOException {
        String boundary = MultipartReader.boundary(contentType).orElseThrow(() -> new ApiException(400,
                "INVALID_MULTIPART", "The Content-Type needs a valid multipart boundary parameter"));
        IncomingForm form = new IncomingForm();
        MultipartReader reader = new MultipartReader(body, boundary);
        try {
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
                        try (FileChannel out = form.createPartFile(partFile)) {
                            HeadKeeper kept = new HeadKeeper(out, form.head);
                            form.fileSize = reader.copyTo(kept, maxFileBytes);
                            form.headLength = kept.kept;
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
        } finally {
            reader.release();
        }
    }

    /** The form for {@link UploadService}: an over-long text field is given as one character over any limit. */
    UploadService.Form toForm(String fileId) {
        return new UploadService.Form(fileId, field("auth_id"), field("business_id"), field("message_type"), file,
                fileName,
                fileSize, field("message_body"), Arrays.copyOf(head, headLength), () -> file = null);
    }

    /**
     * Creates the file for the file part at {@code p} (see {@code FileStore.incomingPath}), readable by this
     * process's user only, and opens it for writing in one system call; it must not exist yet. Its directory is made
     * when it is missing.
     */
    private FileChannel createPartFile(Path p) throws IOException {
        try {
            return openNew(p);
        } catch (NoSuchFileException missingDirectory) {
            Files.createDirectories(p.getParent());
            return openNew(p);
        }
    }

    private FileChannel openNew(Path p) throws IOException {
        FileChannel c = POSIX
                ? FileChannel.open(p, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), OWNER_ONLY)
                : FileChannel.open(p, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        file = p;
        return c;
    }

    /** Passes writes on to a channel and keeps the first bytes written. */
    private static final class HeadKeeper implements WritableByteChannel {
        private final WritableByteChannel out;
        private final byte[] head;
        private int kept;

        HeadKeeper(WritableByteChannel out, byte[] head) {
            this.out = out;
            this.head = head;
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            if (kept < head.length && src.hasRemaining()) {
                int n = Math.min(head.length - kept, src.remaining());
                src.duplicate().get(head, kept, n);
                kept += n;
            }
            return out.write(src);
        }

        @Override
        public boolean isOpen() {
            return out.isOpen();
        }

        @Override
        public void close() throws IOException {
            out.close();
        }
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
