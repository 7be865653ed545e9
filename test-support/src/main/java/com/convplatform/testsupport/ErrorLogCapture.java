package com.convplatform.testsupport;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Collects every log record at ERROR (or SEVERE) or above that the service in this JVM writes while it is open, so a
 * test can show that something was not logged as an error.
 */
public final class ErrorLogCapture extends Handler implements AutoCloseable {
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();

    private ErrorLogCapture() {
        setLevel(Level.SEVERE);
    }

    /** Starts collecting, on the root logger. */
    public static ErrorLogCapture start() {
        ErrorLogCapture capture = new ErrorLogCapture();
        Logger.getLogger("").addHandler(capture);
        return capture;
    }

    @Override
    public void publish(LogRecord record) {
        if (record.getLevel().intValue() >= Level.SEVERE.intValue()) {
            records.add(record);
        }
    }

    /** The records collected, each as "logger: message". */
    public List<String> errors() {
        return records.stream().map(r -> r.getLoggerName() + ": " + r.getMessage()
                + (r.getThrown() == null ? "" : " (" + r.getThrown() + ")")).toList();
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        Logger.getLogger("").removeHandler(this);
    }
}
