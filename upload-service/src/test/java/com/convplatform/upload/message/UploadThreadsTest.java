package com.convplatform.upload.message;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import com.convplatform.upload.UploadConfigs;
import com.convplatform.upload.config.UploadConfig;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.quarkus.runtime.configuration.ConfigurationException;

/**
 * The processing pool's size from the real property names, and what runs where: on the pool's threads while it is
 * there, nowhere (the caller's fallback) when it is 0 or stopped.
 */
class UploadThreadsTest {
    static UploadConfig config(Map<String, String> properties) {
        return UploadConfigs.of(properties);
    }

    @Test
    void aPoolOfOneThreadPerProcessorWithTheLocalStoreAndNoneWithS3() {
        assertEquals(6, UploadThreads.size(config(Map.of()), 6));
        assertEquals(2, UploadThreads.size(config(Map.of("upload.storage.kind", "local")), 2));
        assertEquals(0, UploadThreads.size(config(Map.of("upload.storage.kind", "s3")), 6));
    }

    @Test
    void anExplicitSizeWinsAndANegativeOneStopsTheStart() {
        assertEquals(3, UploadThreads.size(config(Map.of("upload.processing-threads", "3")), 8));
        assertEquals(4,
                UploadThreads.size(config(Map.of("upload.storage.kind", "s3", "upload.processing-threads", "4")), 8));
        assertEquals(0, UploadThreads.size(config(Map.of("upload.processing-threads", "0")), 8));
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> UploadThreads.size(config(Map.of("upload.processing-threads", "-1")), 8));
        assertTrue(e.getMessage().contains("upload.processing-threads must be 0 or more; got -1"), e.getMessage());
    }

    @Test
    void workRunsOnThePoolsThreadsUntilItStops() throws Exception {
        UploadThreads threads = new UploadThreads(config(Map.of("upload.processing-threads", "2")),
                new SimpleMeterRegistry());
        CompletableFuture<String> ranOn = new CompletableFuture<>();
        assertTrue(threads.execute(() -> ranOn.complete(Thread.currentThread().getName())));
        assertTrue(ranOn.get(5, TimeUnit.SECONDS).startsWith("upload-processing-"), ranOn.get());
        threads.stop();
        assertFalse(threads.execute(() -> {
        }), "a stopped pool takes nothing; the caller runs the work elsewhere");
    }

    @Test
    void withoutAPoolNothingIsTaken() {
        UploadThreads none = new UploadThreads(config(Map.of("upload.processing-threads", "0")),
                new SimpleMeterRegistry());
        assertFalse(none.execute(() -> {
        }));
        none.stop();
    }
}
