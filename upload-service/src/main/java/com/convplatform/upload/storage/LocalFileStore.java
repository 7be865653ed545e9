package com.convplatform.upload.storage;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.Optional;

/** Files under {@code upload.storage.dir}, named by their random id only (never by the uploaded name). */
public class LocalFileStore implements FileStore {
    private final Path dir;

    public LocalFileStore(String dir) {
        this.dir = Paths.get(dir);
    }

    /**
     * A rename on the same file system, so the bytes are written once; across them a copy to {@code <id>.part}
     * renamed, so a reader never sees half a file. The directory is made when a move finds it missing.
     */
    @Override
    public void put(String id, Path source) throws IOException {
        Path target = path(id);
        try {
            try {
                Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (NoSuchFileException e) {
                Files.createDirectories(dir);
                Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
            }
        } catch (AtomicMoveNotSupportedException otherFileSystem) {
            Files.createDirectories(dir);
            Path tmp = dir.resolve(id + ".part");
            Files.copy(source, tmp, StandardCopyOption.REPLACE_EXISTING);
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
        }
    }

    @Override
    public int deleteMadeBefore(Instant before) throws IOException {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        int deleted = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                String name = f.getFileName().toString();
                String id = name.endsWith(".part") ? name.substring(0, name.length() - 5) : name;
                if (id.length() == 44 && FileIds.isValid(id) && FileIds.madeAt(id).isBefore(before)
                        && Files.deleteIfExists(f)) {
                    deleted++;
                }
            }
        }
        return deleted;
    }

    @Override
    public Optional<InputStream> open(String id) throws IOException {
        Path p = path(id);
        return Files.exists(p) ? Optional.of(Files.newInputStream(p)) : Optional.empty();
    }

    @Override
    public void delete(String id) throws IOException {
        Files.deleteIfExists(path(id));
    }

    private Path path(String id) {
        if (!FileIds.isValid(id)) {
            throw new IllegalArgumentException("not a file id");
        }
        return dir.resolve(id);
    }

    @Override
    public String toString() {
        return "LocalFileStore[" + dir.toAbsolutePath().normalize() + "]";
    }
}
