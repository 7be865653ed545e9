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
        Path stale = Files.writeString(dir.resolve("resteasy-reactive123upload"), "left by a stopped process");
        Files.setLastModifiedTime(stale, FileTime.from(now.minus(Duration.ofHours(2))));
        Path fresh = Files.writeString(dir.resolve("resteasy-reactive456upload"), "being written by another request");
        Path other = Files.writeString(dir.resolve("notes.txt"), "not ours");
        Files.setLastModifiedTime(other, FileTime.from(now.minus(Duration.ofHours(2))));

        IncomingDirectory.sweep(dir, now.minus(IncomingDirectory.STALE_PART));

        assertFalse(Files.exists(stale));
        assertTrue(Files.exists(fresh));
        assertTrue(Files.exists(other));
        IncomingDirectory.sweep(dir.resolve("missing"), now);
    }
}
