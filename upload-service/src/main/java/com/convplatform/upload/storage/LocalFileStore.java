package com.convplatform.upload.storage;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Optional;

/**
 * Files under {@code upload.storage.dir}, named by their random id only (never by the uploaded name). The default
 * store ({@code upload.storage.kind=local}), made by {@link FileStoreProducer}.
 */
public class LocalFileStore implements FileStore {
    private final Path dir;

    public LocalFileStore(String dir) {
        this.dir = Paths.get(dir);
    }

    /**
     * Moves the upload's temporary file into place when it is on the same file system (the default layout: both
     * under {@code upload.data-dir}), so the bytes are written once; otherwise copies it to {@code <id>.part} and
     * renames that, so a reader never sees half a file. The directory is made when the first put finds it missing.
     * Nothing can find the file before its message is committed: its id holds 128 random bits ({@link FileIds}),
     * made by the service and only given out in the answer.
     */
    @Override
    public void put(String id, Path source) throws IOException {
        Path target = path(id);
        try {
            moveInto(source, target);
        } catch (AtomicMoveNotSupportedException otherFileSystem) {
            Files.createDirectories(dir);
            Path tmp = dir.resolve(id + ".part");
            Files.copy(source, tmp, StandardCopyOption.REPLACE_EXISTING);
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
        }
    }

    /**
     * Renames {@code source} to {@code target} in this store's directory. When the rename finds no directory, the
     * directory is made (or was just made by a concurrent put) and the rename is tried once more; a source that is
     * missing fails both times.
     */
    private void moveInto(Path source, Path target) throws IOException {
        try {
            Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (NoSuchFileException e) {
            Files.createDirectories(dir);
            Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
        }
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
