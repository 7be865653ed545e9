package com.convplatform.upload.storage;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
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

    /**
     * Stores a small file and deletes it, as an upload and an erasure would: made at start, so that a store that cannot
     * take a file (a bucket missing or not writable with the key given, an endpoint out of reach, a directory not
     * writable) stops the service there instead of failing every upload.
     */
    default void checkWritable() throws IOException {
        Path probe = Files.createTempFile("upload-store-check", ".bin");
        try {
            Files.writeString(probe, "upload-service start-up check", StandardCharsets.US_ASCII);
            String id = FileIds.next(Clock.systemUTC());
            put(id, probe);
            delete(id);
        } finally {
            Files.deleteIfExists(probe);
        }
    }
}
