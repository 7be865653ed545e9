package com.convplatform.testsupport;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

import org.jboss.logmanager.ExtLogRecord;

/**
 * Collects the log records that a category of the service in this JVM writes at a level or above while it is open, so a
 * test can show what was logged, or that something was not. The category's level is lowered to that level while the
 * capture is open (and put back when it closes). Each record keeps the MDC of the thread that logged it.
 */
public final class LogCapture extends Handler implements AutoCloseable {
    private static final SimpleFormatter PLAIN = new SimpleFormatter();
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Logger logger;
    private final Level before;

    private LogCapture(String category, Level level) {
        setLevel(level);
        logger = Logger.getLogger(category);
        before = logger.getLevel();
        if (effectiveLevel(logger).intValue() > level.intValue()) {
            logger.setLevel(level);
        }
        logger.addHandler(this);
    }

    /** Starts collecting the records of {@code category} (a logger name; "" for all) at {@code level} or above. */
    public static LogCapture of(String category, Level level) {
        return new LogCapture(category, level);
    }

    /** Starts collecting the records of every category at ERROR (SEVERE) or above. */
    public static LogCapture errors() {
        return of("", Level.SEVERE);
    }

    @Override
    public void publish(LogRecord record) {
        if (isLoggable(record)) {
            if (record instanceof ExtLogRecord e) {
                e.copyAll(); // the MDC of the thread that logs, read later on another
            }
            records.add(record);
        }
    }

    /** The records collected, in the order they were logged. */
    public List<LogRecord> records() {
        return List.copyOf(records);
    }

    /** The messages collected, formatted (their parameters filled in). */
    public List<String> messages() {
        return records.stream().map(LogCapture::message).toList();
    }

    /** The records collected, each as "logger: message", with its exception if it has one. */
    public List<String> summaries() {
        return records.stream().map(r -> r.getLoggerName() + ": " + message(r)
                + (r.getThrown() == null ? "" : " (" + r.getThrown() + ")")).toList();
    }

    /** A record's message with its parameters filled in. */
    public static String message(LogRecord record) {
        return record instanceof ExtLogRecord e ? e.getFormattedMessage() : PLAIN.formatMessage(record);
    }

    private static Level effectiveLevel(Logger logger) {
        for (Logger l = logger; l != null; l = l.getParent()) {
            if (l.getLevel() != null) {
                return l.getLevel();
            }
        }
        return Level.INFO;
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        logger.removeHandler(this);
        logger.setLevel(before);
    }
}
