package com.convplatform.upload.storage;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Where uploaded files live. The local implementation writes to a directory; an S3-compatible one (for several
 * replicas) implements the same three operations.
 */
public interface FileStore {
    /**
     * Moves or copies {@code source} into the store under {@code id}. Returns true when it was moved (it is no longer
     * at {@code source}), false when it was copied (the caller still owns it).
     */
    boolean put(String id, Path source) throws IOException;

    /**
     * Where the file of upload {@code id} is written while it arrives, before {@link #put}: by default a temporary
     * file in {@code incomingDir}, which {@code put} then moves or copies into the store.
     */
    default Path incomingPath(String id, Path incomingDir) {
        return incomingDir.resolve("upload-" + id + ".part");
    }

    /** Opens a stored file. */
    Optional<InputStream> open(String id) throws IOException;

    /** Removes a stored file (used when recording the message fails). */
    void delete(String id) throws IOException;
}
