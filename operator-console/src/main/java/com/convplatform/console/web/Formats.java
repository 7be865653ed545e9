package com.convplatform.console.web;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

import io.quarkus.qute.TemplateExtension;

/** How the pages write times and durations: UTC to the second, and ages a person reads at a glance. */
@TemplateExtension
public class Formats {
    private static final DateTimeFormatter UTC = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'Z'")
            .withZone(ZoneOffset.UTC);

    private static final DateTimeFormatter HHMM = DateTimeFormatter.ofPattern("HH:mm 'UTC'").withZone(ZoneOffset.UTC);

    static String hhmm(Instant at) {
        return at == null ? "-" : HHMM.format(at);
    }

    static String utc(Instant at) {
        return at == null ? "-" : UTC.format(at);
    }

    /** "3 min ago", "in 2 days". */
    static String relative(Instant at) {
        if (at == null) {
            return "-";
        }
        Duration d = Duration.between(Instant.now(), at);
        String span = span(d.abs());
        return d.isNegative() ? span + " ago" : "in " + span;
    }

    static String span(Duration d) {
        long s = d.getSeconds();
        if (s < 120) {
            return s + " s";
        }
        if (s < 7200) {
            return s / 60 + " min";
        }
        if (s < 172800) {
            return s / 3600 + " h";
        }
        return s / 86400 + " days";
    }

    /** A file's size: "812 B", "47.1 KiB", "9.8 MiB". */
    static String bytes(Long size) {
        if (size == null) {
            return "-";
        }
        if (size < 1024) {
            return size + " B";
        }
        double kib = size / 1024.0;
        return kib < 1024
                ? String.format(java.util.Locale.ROOT, "%.1f KiB", kib)
                : String.format(java.util.Locale.ROOT, "%.1f MiB", kib / 1024);
    }

    /** For the cursor of the next page: the instant as ISO-8601, to the microsecond. */
    static String iso(Instant at) {
        return at == null ? "" : at.truncatedTo(ChronoUnit.MICROS).toString();
    }
}
