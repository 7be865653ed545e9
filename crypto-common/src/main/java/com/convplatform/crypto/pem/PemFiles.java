package com.convplatform.crypto.pem;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/** Reading PEM files, and writing key material atomically and readable by its owner only. */
public final class PemFiles {
    private PemFiles() {
    }

    /** The file's text (PEM is ASCII). */
    public static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + file, e);
        }
    }

    /**
     * Writes {@code pem} to {@code file} through a temporary file in the same directory, with owner-only permissions
     * where the file system has POSIX permissions, then moves it into place atomically: a crash never leaves a
     * half-written key, and the key is never readable by others, not even briefly.
     */
    public static void writeOwnerOnly(Path file, String pem) {
        try {
            Path dir = file.toAbsolutePath().getParent();
            Files.createDirectories(dir);
            Path tmp = dir.resolve(file.getFileName() + ".tmp");
            Files.deleteIfExists(tmp);
            try {
                Files.createFile(tmp,
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } catch (UnsupportedOperationException notPosix) {
                Files.createFile(tmp);
            }
            Files.writeString(tmp, pem, StandardCharsets.US_ASCII);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write " + file, e);
        }
    }
}
