package com.convplatform.upload.storage;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Where uploaded files live: a local directory or an S3-compatible bucket (for several replicas). */
public interface FileStore {
    /** Moves or copies {@code source} (the upload's temporary file, removed by its request) into the store. */
    void put(String id, Path source) throws IOException;

    Optional<InputStream> open(String id) throws IOException;

    /** Deletes the file; one that is not there counts as deleted. */
    void delete(String id) throws IOException;

    /** Deletes every file of {@code ids} (retention, erasure); those not there count as deleted. */
    default void deleteAll(List<String> ids) throws IOException {
        for (String id : ids) {
            delete(id);
        }
    }

    /**
     * Deletes the files whose id says they were made before {@code before}, named by a message or not (a file stored
     * by an upload whose message was never committed: a crash between the two); returns how many. Retention calls it
     * with a time before every message it keeps. Ids of the former kind carry no time and stay. A bucket relies on its
     * lifecycle rule for these (README, Retention), so by default none.
     */
    default int deleteMadeBefore(Instant before) throws IOException {
        return 0;
    }
}
