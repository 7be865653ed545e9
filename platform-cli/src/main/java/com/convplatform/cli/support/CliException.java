package com.convplatform.cli.support;

/**
 * Stops a command with an exit code and a message for a person. Thrown for usage errors found while running (a
 * missing file, a key that is not a key) and for an unreachable platform; never for a failed check, which commands
 * report themselves.
 */
public final class CliException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int exitCode;

    public CliException(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    public CliException(int exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    /** A usage error: exit code {@link ExitCodes#USAGE}. */
    public static CliException usage(String message) {
        return new CliException(ExitCodes.USAGE, message);
    }

    /** A usage error with its cause (shown with --verbose). */
    public static CliException usage(String message, Throwable cause) {
        return new CliException(ExitCodes.USAGE, message, cause);
    }

    public int exitCode() {
        return exitCode;
    }
}
