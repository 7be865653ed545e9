package com.convplatform.upload.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local store on a real directory: the move into place, the directory made on first use (also when several
 * uploads are the first at once), and a missing source still refused.
 */
class LocalFileStoreTest {
    @TempDir
    Path tmp;

    private static String id(int n) {
        return HexFormat.of().formatHex(new byte[12]) + String.format("%08x", n);
    }

    private Path source(int n) throws Exception {
        Path p = tmp.resolve("incoming-" + n + ".part");
        Files.writeString(p, "content " + n);
        return p;
    }

    /**
     * The first uploads after start find no store directory; when several arrive together, each one's rename fails,
     * one of them makes the directory, and every one of them must still be stored (one was refused with a 500 before).
     */
    @RepeatedTest(5)
    void concurrentFirstPutsIntoAMissingDirectoryAllSucceed() throws Exception {
        LocalFileStore store = new LocalFileStore(tmp.resolve("files").toString());
        int uploads = 16;
        List<Path> sources = new ArrayList<>();
        for (int i = 0; i < uploads; i++) {
            sources.add(source(i));
        }
        ExecutorService pool = Executors.newFixedThreadPool(uploads);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Object>> puts = new ArrayList<>();
            for (int i = 0; i < uploads; i++) {
                int n = i;
                puts.add(pool.submit(() -> {
                    go.await();
                    store.put(id(n), sources.get(n));
                    return null;
                }));
            }
            go.countDown();
            for (Future<Object> put : puts) {
                put.get();
            }
        } finally {
            pool.shutdown();
        }
        for (int i = 0; i < uploads; i++) {
            assertFalse(Files.exists(sources.get(i)), "the temporary file was moved, not copied");
            try (InputStream in = store.open(id(i)).orElseThrow()) {
                assertArrayEquals(("content " + i).getBytes(StandardCharsets.UTF_8), in.readAllBytes());
            }
        }
    }

    @Test
    void aMissingSourceIsRefusedAndStoresNothing() throws Exception {
        LocalFileStore store = new LocalFileStore(tmp.resolve("files").toString());
        assertThrows(NoSuchFileException.class, () -> store.put(id(1), tmp.resolve("gone.part")));
        assertTrue(Files.isDirectory(tmp.resolve("files")), "the directory was made for the second try");
        assertTrue(store.open(id(1)).isEmpty());
        store.put(id(2), source(2));
        assertThrows(NoSuchFileException.class, () -> store.put(id(3), tmp.resolve("gone.part")));
        assertTrue(store.open(id(3)).isEmpty());
    }
}
