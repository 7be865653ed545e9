package com.convplatform.crypto.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

import org.junit.jupiter.api.Assumptions;

/**
 * Locates the public test vectors in {@code ../shared/vectors}. Where the folder is absent the calling test is skipped
 * with a clear message, unless {@code vectors.required=true} (set on CI), in which case it fails.
 */
public final class Vectors {
    private Vectors() {
    }

    /** The vectors folder; skips or fails the test when it is missing. */
    public static Path dir() {
        String configured = System.getProperty("vectors.dir");
        Path dir = configured != null ? Paths.get(configured) : Paths.get("..", "..", "shared", "vectors");
        boolean required = Boolean.parseBoolean(System.getProperty("vectors.required", "false"));
        if (!Files.isDirectory(dir)) {
            String msg = "Public test vectors not found at " + dir.toAbsolutePath().normalize()
                    + " (expected ../shared/vectors beside the project)";
            if (required) {
                throw new IllegalStateException(msg + "; they are mandatory on CI (vectors.required=true)");
            }
            Assumptions.abort(msg + "; skipping");
        }
        return dir;
    }

    /** A file under the vectors folder, which must exist. */
    public static Path file(String relative) {
        Path p = dir().resolve(relative);
        if (!Files.isRegularFile(p)) {
            throw new IllegalStateException("Missing vector file " + p.toAbsolutePath().normalize());
        }
        return p;
    }
}
