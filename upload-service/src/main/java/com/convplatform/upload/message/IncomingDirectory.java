package com.convplatform.upload.message;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import io.quarkus.runtime.StartupEvent;

/** At start, removes file parts older than an hour from the uploads directory (left by a process that stopped). */
@ApplicationScoped
public class IncomingDirectory {
    private static final Logger LOG = Logger.getLogger(IncomingDirectory.class);
    static final Duration STALE_PART = Duration.ofHours(1);
    /** Vert.x Web's BodyHandler names each part it writes with a random UUID. */
    private static final Pattern PART_NAME = Pattern
            .compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    void sweep(@Observes StartupEvent started,
            @ConfigProperty(name = "quarkus.http.body.uploads-directory") String directory) {
        sweep(Paths.get(directory), Instant.now().minus(STALE_PART));
    }

    static void sweep(Path dir, Instant before) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> parts = Files.list(dir)) {
            for (Path p : parts.filter(p -> PART_NAME.matcher(p.getFileName().toString()).matches()).toList()) {
                if (Files.getLastModifiedTime(p).toInstant().isBefore(before)) {
                    Files.deleteIfExists(p);
                }
            }
        } catch (IOException e) {
            LOG.warnf("Could not sweep %s: %s", dir, e.getMessage());
        }
    }
}
