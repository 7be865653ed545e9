package com.convplatform.upload.message;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IncomingDirectoryTest {
    @Test
    void theStartUpSweepRemovesOnlyStaleParts(@TempDir Path dir) throws IOException {
        Instant now = Instant.now();
        Path stale = Files.writeString(dir.resolve("3e8100b0-7211-41df-8efb-b70c04a4f390"),
                "left by a stopped process");
        Files.setLastModifiedTime(stale, FileTime.from(now.minus(Duration.ofHours(2))));
        Path fresh = Files.writeString(dir.resolve("9a1c2f3e-0b4d-4e5f-8a6b-7c8d9e0f1a2b"),
                "being written by another request");
        Path other = Files.writeString(dir.resolve("notes.txt"), "not ours");
        Files.setLastModifiedTime(other, FileTime.from(now.minus(Duration.ofHours(2))));

        IncomingDirectory.sweep(dir, now.minus(IncomingDirectory.STALE_PART));

        assertFalse(Files.exists(stale));
        assertTrue(Files.exists(fresh));
        assertTrue(Files.exists(other));
        IncomingDirectory.sweep(dir.resolve("missing"), now);
    }
}
