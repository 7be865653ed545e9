package com.convplatform.cli.support;

/** The exit codes of every command; the module README has the same table. */
public final class ExitCodes {
    /** The command did what was asked: accepted, OK, VERIFIED, or a 2xx answer. */
    public static final int OK = 0;
    /** The command ran, and the answer is no: a check failed, or the platform answered 3xx, 4xx or 5xx. */
    public static final int FAILED = 1;
    /** The command could not run: a wrong or missing option, or an input file that is missing or unreadable. */
    public static final int USAGE = 2;
    /** The platform could not be reached: name resolution, connection, TLS handshake or time-out. */
    public static final int UNREACHABLE = 3;
    /** A bug in the command line tool; rerun with --verbose and report the stack trace. */
    public static final int INTERNAL = 4;

    private ExitCodes() {
    }
}
